import { ArgumentMetadata, Injectable, ValidationPipe } from '@nestjs/common';
import { ValidationError, ValidatorOptions } from 'class-validator';
import { AppException, FieldError } from '../errors/app.exception';
import { MALFORMED_BODY } from '../http/json-body.middleware';
import { passwordFieldsOf } from './password.decorator';
import { validationCodeOf } from './validation-code.decorator';

/** A thrown marker carrying the field errors; `transform` turns it into the DTO's code. */
class InputErrors extends Error {
  constructor(readonly details: FieldError[]) {
    super('Invalid input');
  }
}

const UNSAFE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * Validates bodies against their DTO class: unknown fields refused, nested objects validated,
 * the configured password length applied, and every failure answered with the DTO's own code.
 */
@Injectable()
export class AppValidationPipe extends ValidationPipe {
  constructor(private readonly passwordMinLength: number) {
    super({
      whitelist: true,
      forbidNonWhitelisted: true,
      forbidUnknownValues: true,
      transform: true,
      validationError: { target: false, value: false },
      exceptionFactory: (errors: ValidationError[]) => new InputErrors(flatten(errors)),
    });
  }

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type !== 'body' || !metadata.metatype || metadata.metatype === Object) {
      return super.transform(value, metadata);
    }
    const { code, status } = validationCodeOf(metadata.metatype);
    const fail = (details: FieldError[], message = 'The request is invalid'): never => {
      throw new AppException(code, { status, message, details });
    };
    if (value === MALFORMED_BODY) return fail([], 'The request body is not valid JSON');
    if (value === undefined) value = {};
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      return fail([], 'The request body must be a JSON object');
    }
    const unsafe = findUnsafeKey(value);
    if (unsafe) return fail([{ field: unsafe, message: `${unsafe} is not allowed` }]);
    try {
      return await super.transform(value, metadata);
    } catch (error) {
      if (error instanceof InputErrors) return fail(error.details);
      throw error;
    }
  }

  protected override validate(
    object: object,
    options?: ValidatorOptions,
  ): Promise<ValidationError[]> | ValidationError[] {
    return Promise.resolve(super.validate(object, options)).then((errors) => [
      ...errors,
      ...this.passwordLengthErrors(object, errors),
    ]);
  }

  private passwordLengthErrors(object: object, existing: ValidationError[]): ValidationError[] {
    const record = object as Record<string, unknown>;
    return passwordFieldsOf(object.constructor)
      .filter((field) => !existing.some((error) => error.property === field))
      .filter((field) => typeof record[field] === 'string')
      .filter((field) => [...(record[field] as string)].length < this.passwordMinLength)
      .map((field) => {
        const error = new ValidationError();
        error.property = field;
        error.constraints = {
          minLength: `${field} must be at least ${this.passwordMinLength} characters long`,
        };
        return error;
      });
  }
}

/** Raw JSON may carry `__proto__` as an own key; it must never reach a DTO or an entity. */
function findUnsafeKey(value: object, path = ''): string | undefined {
  for (const key of Object.keys(value)) {
    const field = path ? `${path}.${key}` : key;
    if (UNSAFE_KEYS.has(key)) return field;
    const child = (value as Record<string, unknown>)[key];
    if (typeof child === 'object' && child !== null) {
      const found = findUnsafeKey(child, field);
      if (found) return found;
    }
  }
  return undefined;
}

function flatten(errors: ValidationError[], parent = ''): FieldError[] {
  return errors.flatMap((error) => {
    const field = parent ? `${parent}.${error.property}` : error.property;
    const own = Object.values(error.constraints ?? {}).map((message) => ({
      field,
      message: message.replace(/^property /, ''),
    }));
    return [...own, ...flatten(error.children ?? [], field)];
  });
}
