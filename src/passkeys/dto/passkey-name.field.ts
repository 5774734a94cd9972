import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, ValidateBy } from 'class-validator';

export const MAX_PASSKEY_NAME = 64;
/** Control characters: never part of a name, and trouble wherever it is shown. */
const CONTROL = /\p{Cc}/u;

/** The stored form of a passkey's name: NFC, trimmed. */
export function cleanPasskeyName(value: string): string {
  return value.normalize('NFC').trim();
}

/** Why a name cannot be stored, or undefined when it can. Counts characters, not UTF-16 units. */
export function passkeyNameProblem(value: unknown): string | undefined {
  if (typeof value !== 'string') return 'name must be a string';
  const cleaned = cleanPasskeyName(value);
  if (cleaned === '') return 'name must not be empty';
  if (CONTROL.test(cleaned)) return 'name must not contain control characters';
  if ([...cleaned].length > MAX_PASSKEY_NAME) {
    return `name must be at most ${MAX_PASSKEY_NAME} characters long`;
  }
  return undefined;
}

/** A passkey's name as the user types it: trimmed and stored in NFC, 1 to 64 characters. */
export const PasskeyNameField = (required = true) =>
  applyDecorators(
    (required ? ApiProperty : ApiPropertyOptional)({
      example: 'MacBook Touch ID',
      maxLength: MAX_PASSKEY_NAME,
      description: `Trimmed and stored in NFC, 1 to ${MAX_PASSKEY_NAME} characters, no control characters.`,
    }),
    ...(required ? [] : [IsOptional()]),
    ValidateBy({
      name: 'passkeyName',
      validator: {
        validate: (value: unknown) => passkeyNameProblem(value) === undefined,
        defaultMessage: (args) => passkeyNameProblem(args?.value) ?? 'name is invalid',
      },
    }),
  );
