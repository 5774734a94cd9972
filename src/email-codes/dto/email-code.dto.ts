import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsOptional, IsString, Matches } from 'class-validator';
import { AppException } from '../../common/errors/app.exception';
import { EMAIL_ADDRESS } from '../../openapi/email-address.property';
import { EmailField, TokenField, trim } from '../../auth/dto/fields';

/**
 * `{email, code}` (the six digits, with the address they were mailed to) or `{token}` (the
 * mail's link). Which shape it is, is checked once the fields are: `shape()`.
 */
export class EmailCodeVerifyDto {
  @ApiPropertyOptional({ ...EMAIL_ADDRESS, maxLength: 254 })
  @IsOptional()
  @EmailField()
  email?: string;

  @ApiPropertyOptional({
    example: '049213',
    pattern: '^\\d{6}$',
    description: 'The six digits of the mail, with `email`.',
  })
  @IsOptional()
  @Transform(trim)
  @IsString({ message: 'code must be a string' })
  @Matches(/^\d{6}$/, { message: 'code must be the six digits of the email' })
  code?: string;

  @ApiPropertyOptional({
    description: "The token of the mail's link (its `token` query parameter), alone.",
    maxLength: 256,
  })
  @IsOptional()
  @TokenField()
  token?: string;
}

/** The proof the body carries; 400 VALIDATION_ERROR naming the fields for any other shape. */
export function shapeOf(
  body: EmailCodeVerifyDto,
): { email: string; code: string } | { token: string } {
  // A field sent as null is not sent: @IsOptional() lets null through the validators.
  const { email, code, token } = body;
  if (token != null && email == null && code == null) return { token };
  if (token == null && email != null && code != null) return { email, code };
  const message = 'Send either email and code, or token alone';
  // With a token: the fields that should not be there; without: the ones missing.
  const fields = (['email', 'code'] as const).filter((field) =>
    token != null ? body[field] != null : body[field] == null,
  );
  throw new AppException('VALIDATION_ERROR', {
    message,
    details: fields.map((field) => ({ field, message })),
  });
}
