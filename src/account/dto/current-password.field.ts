import { applyDecorators } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { IsNotEmpty, IsString, MaxLength } from 'class-validator';

/**
 * The account's current password, confirming a change: compared exactly as typed (no trimming),
 * with the same bounds as login's password, so that any password login accepts is accepted here.
 */
export const CurrentPasswordField = (field: string) =>
  applyDecorators(
    ApiProperty({ format: 'password', maxLength: 1024, description: 'The current password.' }),
    IsString({ message: `${field} must be a string` }),
    IsNotEmpty({ message: `${field} must not be empty` }),
    MaxLength(1024, { message: `${field} must be at most 1024 characters long` }),
  );
