import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Matches } from 'class-validator';
import { ReauthenticateDto, proofField } from '../../auth/dto/proof-bodies';

/** `{email_code}` in a step-up's body: the six digits `POST /auth/reauthenticate/email-code` mailed. */
export function addEmailCodeProof(): void {
  proofField(
    ReauthenticateDto,
    'email_code',
    String,
    ApiPropertyOptional({
      example: '492039',
      pattern: '^\\d{6}$',
      description: 'The six digits `POST /auth/reauthenticate/email-code` mailed to the account.',
    }),
    IsOptional(),
    IsString({ message: 'email_code must be a string' }),
    Matches(/^\d{6}$/, { message: 'email_code must be the six digits of the mail' }),
  );
}
