import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import { IsObject, IsOptional, IsString, Matches, ValidateNested } from 'class-validator';
import { IsPassword } from '../../common/validation/password.decorator';
import { ValidationErrorCode } from '../../common/validation/validation-code.decorator';
import { USERNAME_PATTERN } from '../../users/identity.normalizer';
import { EmailConfigDto } from './email-config.dto';
import { EmailField, trim } from './fields';

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
  @Matches(USERNAME_PATTERN, {
    message: 'username must be 3 to 32 letters, digits, dots, underscores or hyphens',
  })
  username!: string;

  @ApiPropertyOptional({ type: EmailConfigDto })
  @IsOptional()
  @IsObject({ message: 'emailConfig must be an object' })
  @ValidateNested()
  @Type(() => EmailConfigDto)
  emailConfig?: EmailConfigDto;
}
