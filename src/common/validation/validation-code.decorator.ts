import { ErrorCode } from '../errors/error-codes';

const VALIDATION_CODE = Symbol('validationCode');

export interface ValidationCode {
  /** For values that break a rule: a bad email, a short password, a missing field. */
  code: ErrorCode;
  /** For a request that is malformed: bad JSON, wrong types, unknown fields. */
  malformed: ErrorCode;
  status: number;
}

/**
 * The error code a DTO's invalid input is answered with. decisions.md gives register's invalid
 * values `REGISTRATION_FAILED` but a malformed request `VALIDATION_ERROR`, and a malformed login
 * body `LOGIN_FAILED`; every other DTO answers `VALIDATION_ERROR`.
 */
export function ValidationErrorCode(
  code: ErrorCode,
  options: { malformed?: ErrorCode; status?: number } = {},
): ClassDecorator {
  return (target) => {
    const value: ValidationCode = {
      code,
      malformed: options.malformed ?? code,
      status: options.status ?? 400,
    };
    Reflect.defineMetadata(VALIDATION_CODE, value, target);
  };
}

export function validationCodeOf(metatype: unknown): ValidationCode {
  const found: unknown =
    typeof metatype === 'function' ? Reflect.getMetadata(VALIDATION_CODE, metatype) : undefined;
  return (
    (found as ValidationCode | undefined) ?? {
      code: 'VALIDATION_ERROR',
      malformed: 'VALIDATION_ERROR',
      status: 400,
    }
  );
}
