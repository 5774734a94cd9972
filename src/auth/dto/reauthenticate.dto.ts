import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsObject, IsOptional, IsString, Matches, ValidateNested } from 'class-validator';
import { IdentityProofDto } from '../../second-factor/dto/identity-proof.dto';
import { AuthenticationResponseDto } from '../../passkeys/dto/authentication-response.dto';

/**
 * `POST /auth/reauthenticate`: exactly one proof. `password` or `code` (the authenticator app),
 * as before; `passkey`, the answer to `POST /auth/reauthenticate/passkey/options`; `email_code`,
 * the six digits `POST /auth/reauthenticate/email-code` mailed.
 */
export class ReauthenticateDto extends IdentityProofDto {
  @ApiPropertyOptional({
    type: AuthenticationResponseDto,
    description: "A passkey's answer to `POST /auth/reauthenticate/passkey/options`.",
  })
  @IsOptional()
  @IsObject({ message: 'passkey must be an object' })
  @ValidateNested()
  @Type(() => AuthenticationResponseDto)
  passkey?: AuthenticationResponseDto;

  @ApiPropertyOptional({
    example: '492039',
    pattern: '^\\d{6}$',
    description: 'The six digits `POST /auth/reauthenticate/email-code` mailed to the account.',
  })
  @IsOptional()
  @IsString({ message: 'email_code must be a string' })
  @Matches(/^\d{6}$/, { message: 'email_code must be the six digits of the mail' })
  email_code?: string;
}
