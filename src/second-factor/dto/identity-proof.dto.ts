import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsNotEmpty, IsOptional, IsString, MaxLength } from 'class-validator';
import { TotpCodeField } from './second-factor-fields';

/**
 * `{password}` or `{code}`: proof that the signed-in person is the account's owner, for a
 * step-up (`POST /auth/reauthenticate`) or switching the second factor off.
 */
export class IdentityProofDto {
  /** Compared exactly as typed, with login's bounds. */
  @ApiPropertyOptional({ format: 'password', maxLength: 1024 })
  @IsOptional()
  @IsString({ message: 'password must be a string' })
  @IsNotEmpty({ message: 'password must not be empty' })
  @MaxLength(1024, { message: 'password must be at most 1024 characters long' })
  password?: string;

  @TotpCodeField(false)
  code?: string;
}
