import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsNotEmpty, IsOptional, IsString, MaxLength } from 'class-validator';
import { ReauthenticateDto, proofField } from '../../auth/dto/proof-bodies';

/** `{password}` in a step-up's body: compared exactly as typed, with login's bounds. */
export function addPasswordProof(): void {
  proofField(
    ReauthenticateDto,
    'password',
    String,
    ApiPropertyOptional({ format: 'password', maxLength: 1024 }),
    IsOptional(),
    IsString({ message: 'password must be a string' }),
    IsNotEmpty({ message: 'password must not be empty' }),
    MaxLength(1024, { message: 'password must be at most 1024 characters long' }),
  );
}
