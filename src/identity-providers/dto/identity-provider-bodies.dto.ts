import { ApiProperty } from '@nestjs/swagger';
import { IsEmail, IsString, MaxLength } from 'class-validator';
import { EMAIL_ADDRESS } from '../../openapi/email-address.property';

/** `POST /auth/sso/start`: the address typed on the sign-in page, and where to come back. */
export class SsoStartDto {
  @ApiProperty(EMAIL_ADDRESS)
  @IsString({ message: 'email must be a string' })
  @MaxLength(254, { message: 'email must be at most 254 characters long' })
  @IsEmail({}, { message: 'email must be an email address' })
  email!: string;

  @ApiProperty({ format: 'uri', description: 'An app page; its origin must be in APP_ORIGINS.' })
  @IsString({ message: 'redirect_to must be a string' })
  @MaxLength(2048, { message: 'redirect_to must be at most 2048 characters long' })
  redirect_to!: string;
}
