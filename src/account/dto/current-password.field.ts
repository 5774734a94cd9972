import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsNotEmpty, IsOptional, IsString, MaxLength } from 'class-validator';

/**
 * The account's current password, confirming a change: compared exactly as typed (no trimming),
 * with the same bounds as login's password, so that any password login accepts is accepted here.
 * `required: false` where an account without a password leaves it out (a recent sign-in
 * confirms the change instead: ChangeConfirmation, which also asks it of an account that has one).
 */
export const CurrentPasswordField = (field: string, required = true) =>
  applyDecorators(
    required
      ? ApiProperty({ format: 'password', maxLength: 1024, description: 'The current password.' })
      : ApiPropertyOptional({
          format: 'password',
          maxLength: 1024,
          description:
            'The current password, required of an account that has one; left out by an account ' +
            'without one (`has_password: false` in GET /users/me), whose recent sign-in ' +
            '(STEP_UP_MAX_AGE) confirms the change instead.',
        }),
    ...(required ? [] : [IsOptional()]),
    IsString({ message: `${field} must be a string` }),
    IsNotEmpty({ message: `${field} must not be empty` }),
    MaxLength(1024, { message: `${field} must be at most 1024 characters long` }),
  );
