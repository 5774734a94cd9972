import { ApiProperty } from '@nestjs/swagger';
import { IsNotEmpty, IsString, MaxLength } from 'class-validator';
import { RecoveryCodeField, TotpCodeField } from './mfa-fields';

/** `POST /auth/mfa/verify`: the login's challenge, and a code or a recovery code. */
export class MfaVerifyDto {
  @ApiProperty({ description: "The password step's `challenge`.", maxLength: 256 })
  @IsString({ message: 'challenge must be a string' })
  @IsNotEmpty({ message: 'challenge must not be empty' })
  @MaxLength(256, { message: 'challenge must be at most 256 characters long' })
  challenge!: string;

  @TotpCodeField(false)
  code?: string;

  @RecoveryCodeField()
  recovery_code?: string;
}
