import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsNotEmpty, IsOptional, IsString, Matches, MaxLength } from 'class-validator';

/** A code from an authenticator app: six digits, as typed (spaces are the typist's). */
export const TotpCodeField = (required = true) =>
  applyDecorators(
    (required ? ApiProperty : ApiPropertyOptional)({
      example: '492039',
      pattern: '^\\d{6}$',
      description: 'The six digits the authenticator app shows now.',
    }),
    ...(required ? [] : [IsOptional()]),
    IsString({ message: 'code must be a string' }),
    Matches(/^\d{6}$/, { message: 'code must be the six digits of the authenticator app' }),
  );

/** One of the recovery codes shown at enrolment (`XXXXX-XXXXX`; case and dash optional). */
export const RecoveryCodeField = () =>
  applyDecorators(
    ApiPropertyOptional({ example: 'K7QXM-4PZRT', maxLength: 32 }),
    IsOptional(),
    IsString({ message: 'recovery_code must be a string' }),
    IsNotEmpty({ message: 'recovery_code must not be empty' }),
    MaxLength(32, { message: 'recovery_code must be at most 32 characters long' }),
  );
