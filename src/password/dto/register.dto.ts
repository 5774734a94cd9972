import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import {
  IsObject,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  MinLength,
  ValidateNested,
} from 'class-validator';
import { IsPassword } from '../../common/validation/password.decorator';
import { ValidationErrorCode } from '../../common/validation/validation-code.decorator';
import { USERNAME_CHARACTERS, USERNAME_PATTERN } from '../../users/identity.normalizer';
import { EmailConfigDto } from './email-config.dto';
import { EmailField, trim } from '../../auth/dto/fields';

@ValidationErrorCode('REGISTRATION_FAILED', { malformed: 'VALIDATION_ERROR' })
export class RegisterDto {
  @EmailField()
  email!: string;

  // Compared with the fields as validated: the email trimmed, the username trimmed.
  @IsPassword({ unlike: ['email', 'username'] })
  password!: string;

  @ApiProperty({ pattern: USERNAME_PATTERN.source, example: 'ann' })
  @Transform(trim)
  @IsString({ message: 'username must be a string' })
  // One message per mistake, so a form can say which one was made.
  @MinLength(3, { message: 'username must be at least 3 characters long' })
  @MaxLength(32, { message: 'username must be at most 32 characters long' })
  @Matches(USERNAME_CHARACTERS, {
    message: 'username may only contain letters, digits, dots, underscores and hyphens',
  })
  username!: string;

  @ApiPropertyOptional({ type: EmailConfigDto })
  @IsOptional()
  @IsObject({ message: 'emailConfig must be an object' })
  @ValidateNested()
  @Type(() => EmailConfigDto)
  emailConfig?: EmailConfigDto;
}
