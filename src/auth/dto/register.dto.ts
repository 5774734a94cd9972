import { Transform, Type } from 'class-transformer';
import {
  IsEmail,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  ValidateNested,
} from 'class-validator';
import { IsPassword } from '../../common/validation/password.decorator';
import { ValidationErrorCode } from '../../common/validation/validation-code.decorator';
import { USERNAME_PATTERN } from '../../users/identity.normalizer';
import { EmailConfigDto } from './email-config.dto';

const trim = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value);

@ValidationErrorCode('REGISTRATION_FAILED', { malformed: 'VALIDATION_ERROR' })
export class RegisterDto {
  @Transform(trim)
  @IsString({ message: 'email must be a string' })
  @MaxLength(254, { message: 'email must be at most 254 characters long' })
  @IsEmail({}, { message: 'email must be a valid email address' })
  email!: string;

  @IsPassword()
  password!: string;

  @Transform(trim)
  @IsString({ message: 'username must be a string' })
  @Matches(USERNAME_PATTERN, {
    message: 'username must be 3 to 32 letters, digits, dots, underscores or hyphens',
  })
  username!: string;

  @IsOptional()
  @IsObject({ message: 'emailConfig must be an object' })
  @ValidateNested()
  @Type(() => EmailConfigDto)
  emailConfig?: EmailConfigDto;
}
