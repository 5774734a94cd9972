import type { ErrorCode, FailureEnvelope } from './types.js';

/** Every failed call rejects with this: the envelope's code, message and the HTTP status. */
export class AuthError extends Error {
  override readonly name = 'AuthError';

  constructor(
    /** The envelope's `error`, or a client-side code when there was no envelope. */
    readonly code: ErrorCode,
    message: string,
    /** 0 when no response arrived. */
    readonly status: number,
    /** `Retry-After`, in seconds, on 429 and 503 answers that carry it. */
    readonly retryAfter?: number,
  ) {
    super(message);
  }

  static fromEnvelope(envelope: FailureEnvelope, response: Response): AuthError {
    const retryAfter = Number(response.headers.get('retry-after'));
    return new AuthError(
      envelope.error,
      envelope.message,
      response.status,
      Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : undefined,
    );
  }
}
