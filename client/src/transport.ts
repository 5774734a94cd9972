// What the session engine does around each request: errors made AuthErrors, listeners told safely.
import { AuthError } from './auth-error.js';

/** Runs a `fetch`, turning what it throws into an AuthError that says what happened. */
export async function transport(send: () => Promise<Response>, url: string): Promise<Response> {
  try {
    return await send();
  } catch (error) {
    const name = (error as { name?: unknown } | null)?.name;
    if (name === 'AbortError') {
      throw new AuthError('ABORTED', 'The request was aborted', 0, undefined, [], { cause: error });
    }
    const what = name === 'TimeoutError' ? 'did not answer in time' : 'could not be reached';
    throw new AuthError('NETWORK_ERROR', `${new URL(url).origin} ${what}`, 0, undefined, [], {
      cause: error,
    });
  }
}

export function asAuthError(error: unknown): AuthError {
  return error instanceof AuthError
    ? error
    : new AuthError('NETWORK_ERROR', 'The service could not be reached', 0, undefined, [], {
        cause: error,
      });
}

/** A refresh answered neither 2xx nor 401 but with a success envelope: not what it should be. */
export function asUnexpected(): AuthError {
  return new AuthError('UNEXPECTED_RESPONSE', 'The refresh answered an unexpected status', 0);
}

export function notify<T>(listeners: Set<(value: T) => void>, value: T): void {
  for (const listener of [...listeners]) {
    try {
      listener(value);
    } catch (error) {
      // The app's bug must not break the SDK or the other listeners; it still surfaces.
      setTimeout(() => {
        throw error;
      });
    }
  }
}
