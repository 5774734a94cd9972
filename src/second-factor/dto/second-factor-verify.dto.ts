import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  IsNotEmpty,
  IsObject,
  IsOptional,
  IsString,
  MaxLength,
  ValidateNested,
} from 'class-validator';
import { AuthenticationResponseDto } from '../../passkeys/dto/authentication-response.dto';
import { RecoveryCodeField, TotpCodeField } from './second-factor-fields';

/** `POST /auth/mfa/verify`: the login's challenge, and a code, a recovery code or a passkey. */
export class SecondFactorVerifyDto {
  @ApiProperty({ description: "The password step's `challenge`.", maxLength: 256 })
  @IsString({ message: 'challenge must be a string' })
  @IsNotEmpty({ message: 'challenge must not be empty' })
  @MaxLength(256, { message: 'challenge must be at most 256 characters long' })
  challenge!: string;

  @TotpCodeField(false)
  code?: string;

  @RecoveryCodeField()
  recovery_code?: string;

  @ApiPropertyOptional({
    type: AuthenticationResponseDto,
    description: "A passkey's answer to `POST /auth/mfa/passkey/options`.",
  })
  @IsOptional()
  @IsObject({ message: 'passkey must be an object' })
  @ValidateNested()
  @Type(() => AuthenticationResponseDto)
  passkey?: AuthenticationResponseDto;
}
