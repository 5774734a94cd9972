import { ApiProperty } from '@nestjs/swagger';
import { IsNotEmpty, IsString, MaxLength } from 'class-validator';

/** `DELETE /users/me`: the current password confirms it is the owner, not a borrowed session. */
export class DeleteAccountDto {
  @ApiProperty({ format: 'password', description: 'The current password.', maxLength: 1024 })
  @IsString({ message: 'password must be a string' })
  @IsNotEmpty({ message: 'password must not be empty' })
  @MaxLength(1024, { message: 'password must be at most 1024 characters long' })
  password!: string;
}
