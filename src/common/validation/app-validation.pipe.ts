import { ArgumentMetadata, Injectable, ValidationPipe } from '@nestjs/common';
import { ValidationError, ValidatorOptions } from 'class-validator';
import { AppException, FieldError } from '../errors/app.exception';
import { MALFORMED_BODY } from '../http/json-body';
import { passwordFieldsOf } from './password.decorator';
import { validationCodeOf } from './validation-code.decorator';

interface Problem extends FieldError {
  /** Wrong type or unknown field, as opposed to a value that breaks a rule. */
  malformed: boolean;
}

/** Thrown by the exception factory; `transform` turns it into the DTO's code. */
class InputErrors extends Error {
  constructor(readonly errors: ValidationError[]) {
    super('Invalid input');
  }
}

const UNSAFE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);
const TYPE_CONSTRAINTS = new Set([
  'isString',
  'isObject',
  'isNumber',
  'isBoolean',
  'isInt',
  'isArray',
]);

/**
 * Validates bodies against their DTO class: unknown fields refused, nested objects validated,
 * the configured password length applied, and every failure answered with the DTO's own code
 * and a `details` list of `{ field, message }`.
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
      exceptionFactory: (errors: ValidationError[]) => new InputErrors(errors),
    });
  }

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type !== 'body' || !metadata.metatype || metadata.metatype === Object) {
      return super.transform(value, metadata);
    }
    const codes = validationCodeOf(metadata.metatype);
    const fail = (problems: Problem[], message = 'The request is invalid'): never => {
      const malformed = problems.length === 0 || problems.some((problem) => problem.malformed);
      throw new AppException(malformed ? codes.malformed : codes.code, {
        status: codes.status,
        message,
        details: problems.map(({ field, message: text }) => ({ field, message: text })),
      });
    };
    // A body that cannot be read as an object at all: the body as a whole is the field at fault.
    const failBody = (message: string): never =>
      fail([{ field: 'body', message, malformed: true }], message);
    if (value === MALFORMED_BODY) return failBody('The request body is not valid JSON');
    if (value === undefined) value = {};
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      return failBody('The request body must be a JSON object');
    }
    const screened = screen(value);
    if (screened.length > 0) return fail(screened);
    try {
      return await super.transform(value, metadata);
    } catch (error) {
      if (error instanceof InputErrors) return fail(distinct(describe(error.errors, value)));
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

/** Deeper than any DTO goes; deeper bodies are refused before anything recurses into them. */
const MAX_DEPTH = 16;

/**
 * What no validator may see, found before any runs. Raw JSON may carry `__proto__` as an own key,
 * which must never reach a DTO or an entity, and may nest thousands of levels deep, which would
 * overflow a recursive walk (so this one walks with a stack). A `\ud83d` escape gives a string
 * with an unpaired surrogate, which is not Unicode text at all: validators that encode it (the
 * email check does) throw, and no column could store it faithfully.
 */
function screen(value: object): Problem[] {
  const illFormed: Problem[] = [];
  const pending: Array<{ node: object; path: string; depth: number }> = [
    { node: value, path: '', depth: 1 },
  ];
  while (pending.length > 0) {
    const { node, path, depth } = pending.pop()!;
    if (depth > MAX_DEPTH) return [notAllowed(path)];
    for (const key of Object.keys(node)) {
      const field = path ? `${path}.${key}` : key;
      if (UNSAFE_KEYS.has(key)) return [notAllowed(field)];
      const child = (node as Record<string, unknown>)[key];
      if (UNPAIRED.test(key) || (typeof child === 'string' && UNPAIRED.test(child))) {
        // The answer names the field in text that can be shown: U+FFFD for the bad unit.
        const named = field.replace(UNPAIRED_ALL, '\uFFFD');
        illFormed.push({
          field: named,
          message: `${named} must be valid Unicode text (it holds an unpaired surrogate)`,
          malformed: true,
        });
      } else if (typeof child === 'object' && child !== null) {
        pending.push({ node: child, path: field, depth: depth + 1 });
      }
    }
  }
  return illFormed.reverse();
}

/** With the `u` flag a pair is one code point: only an unpaired half is a surrogate. */
const UNPAIRED = /\p{Cs}/u;
const UNPAIRED_ALL = /\p{Cs}/gu;

function notAllowed(field: string): Problem {
  return { field, message: `${field} is not allowed here`, malformed: true };
}

/** One problem per broken rule, named by its dotted path; a missing field is just "required". */
function describe(errors: ValidationError[], raw: unknown, parent = ''): Problem[] {
  return errors.flatMap((error) => {
    const field = parent ? `${parent}.${error.property}` : error.property;
    const rawValue =
      typeof raw === 'object' && raw !== null
        ? (raw as Record<string, unknown>)[error.property]
        : undefined;
    const constraints = Object.entries(error.constraints ?? {});
    const own: Problem[] =
      rawValue === undefined && constraints.length > 0
        ? [{ field, message: `${field} is required`, malformed: false }]
        : constraints.map(([name, message]) => ({
            field,
            message: name === 'whitelistValidation' ? `${field} is not allowed` : message,
            malformed: name === 'whitelistValidation' || TYPE_CONSTRAINTS.has(name),
          }));
    return [...own, ...describe(error.children ?? [], rawValue, field)];
  });
}

/** Two rules may word one fault alike (an email that is not one): say it once. */
function distinct(problems: Problem[]): Problem[] {
  const seen = new Set<string>();
  return problems.filter(({ field, message }) => {
    const key = `${field}\n${message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
