import { ErrorCode } from '../errors/error-codes';
import { FieldError } from '../errors/app.exception';

/** Every response body: `{ success, message, data?, error?, details? }`. */
export interface Envelope<T = unknown> {
  success: boolean;
  message: string;
  data?: T;
  error?: ErrorCode;
  details?: FieldError[];
}

export function ok<T>(message: string, data?: T): Envelope<T> {
  return data === undefined ? { success: true, message } : { success: true, message, data };
}
