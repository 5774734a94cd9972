import { applyDecorators } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { IsString, ValidateBy, ValidationArguments, buildMessage } from 'class-validator';
import {
  COMMON_PASSWORD_MESSAGE,
  IDENTITY_PASSWORD_MESSAGE,
  isCommonPassword,
  matchesIdentity,
} from './password-rules';

/** bcrypt reads only the first 72 bytes; a longer password would be silently truncated. */
export const MAX_PASSWORD_BYTES = 72;

const PASSWORD_FIELDS = Symbol('passwordFields');

/** Property names marked `@IsPassword()` on a DTO class, for the pipe's configurable length rule. */
export function passwordFieldsOf(metatype: unknown): string[] {
  if (typeof metatype !== 'function') return [];
  return (Reflect.getMetadata(PASSWORD_FIELDS, metatype) as string[] | undefined) ?? [];
}

export interface PasswordOptions {
  /**
   * Fields of the same DTO that identify the account (an email address, a username): the password
   * must not equal any of them, nor an address's local part, in any case. A DTO that does not
   * carry the account's identifiers (a reset by token) leaves this to the service that knows them.
   */
  unlike?: readonly string[];
}

/**
 * A new password: a string of at most 72 UTF-8 bytes, not on the shipped list of common
 * passwords, and not one of the account's identifiers named in `unlike`. The minimum length comes
 * from configuration (`PASSWORD_MIN_LENGTH`), so the validation pipe applies it to the fields
 * marked here.
 */
export function IsPassword(options: PasswordOptions = {}): PropertyDecorator {
  const mark: PropertyDecorator = (target, property) => {
    const fields = passwordFieldsOf(target.constructor);
    Reflect.defineMetadata(PASSWORD_FIELDS, [...fields, String(property)], target.constructor);
  };
  const unlike = options.unlike ?? [];
  return applyDecorators(
    ApiProperty({
      format: 'password',
      minLength: 6,
      description:
        'At least PASSWORD_MIN_LENGTH characters (6 by default), at most 72 bytes in UTF-8; not a ' +
        'common password (a shipped list, any case), nor the email address, the part before ' +
        'its @, or the username of the account.',
    }),
    mark,
    IsString({ message: '$property must be a string' }),
    ValidateBy({
      name: 'maxPasswordBytes',
      validator: {
        validate: (value: unknown) =>
          typeof value === 'string' && Buffer.byteLength(value, 'utf8') <= MAX_PASSWORD_BYTES,
        defaultMessage: buildMessage(
          () => `$property must be at most ${MAX_PASSWORD_BYTES} bytes long`,
        ),
      },
    }),
    ValidateBy({
      name: 'notCommonPassword',
      validator: {
        validate: (value: unknown) => typeof value !== 'string' || !isCommonPassword(value),
        defaultMessage: (args?: ValidationArguments) => COMMON_PASSWORD_MESSAGE(args!.property),
      },
    }),
    ...(unlike.length === 0
      ? []
      : [
          ValidateBy({
            name: 'notAccountIdentity',
            validator: {
              validate: (value: unknown, args?: ValidationArguments) => {
                if (typeof value !== 'string') return true;
                const dto = (args?.object ?? {}) as Record<string, unknown>;
                return !matchesIdentity(
                  value,
                  unlike.map((field) => dto[field]),
                );
              },
              defaultMessage: (args?: ValidationArguments) =>
                IDENTITY_PASSWORD_MESSAGE(args!.property),
            },
          }),
        ]),
  );
}
