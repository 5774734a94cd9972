import { ErrorCode } from '../errors/error-codes';

const VALIDATION_CODE = Symbol('validationCode');

export interface ValidationCode {
  code: ErrorCode;
  status: number;
}

/**
 * The error code (and status) a DTO's invalid input is answered with: a malformed login body is
 * `400 LOGIN_FAILED`, bad registration input `400 REGISTRATION_FAILED`; the rest `VALIDATION_ERROR`.
 */
export function ValidationErrorCode(code: ErrorCode, status = 400): ClassDecorator {
  return (target) => {
    Reflect.defineMetadata(VALIDATION_CODE, { code, status }, target);
  };
}

export function validationCodeOf(metatype: unknown): ValidationCode {
  const found: unknown =
    typeof metatype === 'function' ? Reflect.getMetadata(VALIDATION_CODE, metatype) : undefined;
  return (found as ValidationCode | undefined) ?? { code: 'VALIDATION_ERROR', status: 400 };
}
