import { AppException } from '../errors/app.exception';

/**
 * Exactly one of `fields` must be given (the others absent): a body with two ways to prove who
 * one is, or none, is 400 VALIDATION_ERROR naming them.
 */
export function exactlyOne<T extends object>(body: T, fields: Array<keyof T & string>): void {
  const given = fields.filter((field) => body[field] !== undefined);
  if (given.length === 1) return;
  const message = `Send exactly one of ${fields.join(', ')}`;
  throw new AppException('VALIDATION_ERROR', {
    message,
    details: (given.length === 0 ? fields : given).map((field) => ({ field, message })),
  });
}
