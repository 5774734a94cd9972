import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsNotEmpty, IsObject, IsString, MaxLength, ValidateNested } from 'class-validator';
import { AuthenticationResponseDto } from './authentication-response.dto';
import { PasskeyNameField } from './passkey-name.field';
import { RegistrationResponseDto } from './registration-response.dto';

/** `POST /users/me/passkeys`: the browser's answer to the registration options, and a name. */
export class RegisterPasskeyDto {
  @ApiProperty({ type: RegistrationResponseDto })
  @IsObject({ message: 'response must be an object' })
  @ValidateNested()
  @Type(() => RegistrationResponseDto)
  response!: RegistrationResponseDto;

  @PasskeyNameField(false)
  name?: string;
}

/** `PATCH /users/me/passkeys/:id`. */
export class RenamePasskeyDto {
  @PasskeyNameField()
  name!: string;
}

/** `POST /auth/passkey/verify`: the browser's answer to the sign-in options. */
export class PasskeySignInDto {
  @ApiProperty({ type: AuthenticationResponseDto })
  @IsObject({ message: 'response must be an object' })
  @ValidateNested()
  @Type(() => AuthenticationResponseDto)
  response!: AuthenticationResponseDto;
}

/** `POST /auth/mfa/passkey/options`: the pending login's challenge. */
export class PasskeySecondFactorOptionsDto {
  @ApiProperty({ description: "The password step's `challenge`.", maxLength: 256 })
  @IsString({ message: 'challenge must be a string' })
  @IsNotEmpty({ message: 'challenge must not be empty' })
  @MaxLength(256, { message: 'challenge must be at most 256 characters long' })
  challenge!: string;
}
