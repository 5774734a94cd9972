import { ERROR_CATALOGUE, ErrorCode, RETRY_AFTER_SECONDS } from './error-codes';

export interface FieldError {
  field: string;
  message: string;
  /** A word a client can branch on where one field can be wrong in several ways (a link). */
  reason?: string;
}

export interface AppExceptionOptions {
  message?: string;
  details?: FieldError[];
  /** HTTP status when the catalogue's default does not fit (e.g. 400 for a malformed login). */
  status?: number;
  /** Seconds, sent as `Retry-After` (RETRY_AFTER_SECONDS by default, for an outage's 503). */
  retryAfter?: number;
  /** Headers the answer needs beside the envelope (a `WWW-Authenticate` challenge). */
  headers?: Readonly<Record<string, string>>;
}

/** The only exception the app throws on purpose; the filter turns it into the envelope. */
export class AppException extends Error {
  readonly status: number;
  readonly details?: FieldError[];
  readonly retryAfter?: number;
  readonly headers?: Readonly<Record<string, string>>;

  constructor(
    readonly code: ErrorCode,
    options: AppExceptionOptions = {},
  ) {
    super(options.message ?? ERROR_CATALOGUE[code].message);
    this.name = 'AppException';
    this.status = options.status ?? ERROR_CATALOGUE[code].status;
    this.details = options.details;
    this.retryAfter = options.retryAfter ?? RETRY_AFTER_SECONDS[code];
    this.headers = options.headers;
  }
}
