import type { ErrorCode, FailureEnvelope, FieldError, LinkRefusal } from './types.js';

/**
 * Every failed call rejects with this: the envelope's code, message, field details and the HTTP
 * status, or a client-side code when no envelope came back.
 */
export class AuthError extends Error {
  override readonly name = 'AuthError';

  constructor(
    /** The envelope's `error`, or a client-side code when there was no envelope. */
    readonly code: ErrorCode,
    message: string,
    /** 0 when no response arrived. */
    readonly status: number,
    /** `Retry-After`, in seconds, on any answer that carries it (429, 503). */
    readonly retryAfter?: number,
    /** The service's `details`: which fields of the request were wrong, and why. */
    readonly details: readonly FieldError[] = [],
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }

  /** The messages about one field (`'email'`, `'password'`…), joined; undefined when none. */
  detailFor(field: string): string | undefined {
    const messages = this.details.filter((d) => d.field === field).map((d) => d.message);
    return messages.length > 0 ? messages.join('; ') : undefined;
  }

  /** Why an emailed link (verify-email, reset-password, email change) was refused, if known. */
  get linkRefusal(): LinkRefusal | undefined {
    return this.details.find((d) => d.field === 'token')?.reason;
  }

  static fromEnvelope(envelope: FailureEnvelope, response: Response): AuthError {
    const retryAfter = Number(response.headers.get('retry-after'));
    return new AuthError(
      envelope.error,
      envelope.message,
      response.status,
      Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : undefined,
      Array.isArray(envelope.details) ? envelope.details.filter(isFieldError) : [],
    );
  }
}

function isFieldError(value: unknown): value is FieldError {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as FieldError).field === 'string' &&
    typeof (value as FieldError).message === 'string'
  );
}
