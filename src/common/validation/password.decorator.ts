import { applyDecorators } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { IsString, ValidateBy, buildMessage } from 'class-validator';

/** bcrypt reads only the first 72 bytes; a longer password would be silently truncated. */
export const MAX_PASSWORD_BYTES = 72;

const PASSWORD_FIELDS = Symbol('passwordFields');

/** Property names marked `@IsPassword()` on a DTO class, for the pipe's configurable length rule. */
export function passwordFieldsOf(metatype: unknown): string[] {
  if (typeof metatype !== 'function') return [];
  return (Reflect.getMetadata(PASSWORD_FIELDS, metatype) as string[] | undefined) ?? [];
}

/**
 * A new password: a string of at most 72 UTF-8 bytes. The minimum length comes from configuration
 * (`PASSWORD_MIN_LENGTH`), so the validation pipe applies it to the fields marked here.
 */
export function IsPassword(): PropertyDecorator {
  const mark: PropertyDecorator = (target, property) => {
    const fields = passwordFieldsOf(target.constructor);
    Reflect.defineMetadata(PASSWORD_FIELDS, [...fields, String(property)], target.constructor);
  };
  return applyDecorators(
    ApiProperty({
      format: 'password',
      minLength: 6,
      description:
        'At least PASSWORD_MIN_LENGTH characters (6 by default), at most 72 bytes in UTF-8.',
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
  );
}
