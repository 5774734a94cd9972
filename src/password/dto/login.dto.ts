import { ApiProperty } from '@nestjs/swagger';
import { IsNotEmpty, IsString, MaxLength } from 'class-validator';
import { ValidationErrorCode } from '../../common/validation/validation-code.decorator';
import { EMAIL_ADDRESS } from '../../openapi/email-address.property';

/** A malformed login body is `400 LOGIN_FAILED`; a wrong password `401 LOGIN_FAILED`. */
@ValidationErrorCode('LOGIN_FAILED')
export class LoginDto {
  @ApiProperty({ ...EMAIL_ADDRESS, maxLength: 254 })
  @IsString({ message: 'email must be a string' })
  @IsNotEmpty({ message: 'email must not be empty' })
  @MaxLength(254, { message: 'email must be at most 254 characters long' })
  email!: string;

  /** Compared exactly as typed: no trimming. */
  @ApiProperty({ format: 'password', maxLength: 1024 })
  @IsString({ message: 'password must be a string' })
  @IsNotEmpty({ message: 'password must not be empty' })
  @MaxLength(1024, { message: 'password must be at most 1024 characters long' })
  password!: string;
}
