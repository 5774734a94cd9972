import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsObject, IsOptional, ValidateNested } from 'class-validator';
import { ReauthenticateDto, SecondFactorVerifyDto, proofField } from '../../auth/dto/proof-bodies';
import { AuthenticationResponseDto } from './authentication-response.dto';

/** A passkey's answer, as a login's second step and as a step-up, each to its own options route. */
export function addPasskeyProofs(): void {
  const answer = (optionsRoute: string) => [
    ApiPropertyOptional({
      type: AuthenticationResponseDto,
      description: `A passkey's answer to \`POST ${optionsRoute}\`.`,
    }),
    IsOptional(),
    IsObject({ message: 'passkey must be an object' }),
    ValidateNested(),
    Type(() => AuthenticationResponseDto),
  ];
  proofField(
    SecondFactorVerifyDto,
    'passkey',
    AuthenticationResponseDto,
    ...answer('/auth/mfa/passkey/options'),
  );
  proofField(
    ReauthenticateDto,
    'passkey',
    AuthenticationResponseDto,
    ...answer('/auth/reauthenticate/passkey/options'),
  );
}
