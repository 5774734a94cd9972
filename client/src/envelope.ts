import { AuthError } from './auth-error.js';
import type { FailureEnvelope, MessageEnvelope } from './types.js';

/** The envelope of a response, or the AuthError it stands for. */
export async function readEnvelope<R extends MessageEnvelope>(response: Response): Promise<R> {
  const body = await readJson(response);
  if (isEnvelope(body)) {
    if (body.success) return body as R;
    throw AuthError.fromEnvelope(body as FailureEnvelope, response);
  }
  throw unexpected(response);
}

/**
 * A success that is not the envelope (login's body-token answer); a failure is still the
 * envelope.
 */
export async function readBare<R>(response: Response, looksRight: (body: unknown) => boolean) {
  const body = await readJson(response);
  if (response.ok && looksRight(body)) return body as R;
  if (isEnvelope(body) && !body.success) {
    throw AuthError.fromEnvelope(body as FailureEnvelope, response);
  }
  throw unexpected(response);
}

/**
 * A 401 about the session (an access token missing, expired or revoked), which a refresh may
 * fix; not one about a code the user typed (`INVALID_MFA_CODE`) or a passkey the service refused
 * (`INVALID_PASSKEY`: a retry would send a used challenge), nor one about a mailed link's token
 * (an invitation used, withdrawn or expired: its `details` name the `token`). Reads a copy.
 */
export async function refusesSession(response: Response): Promise<boolean> {
  if (response.status !== 401) return false;
  const body = (await readJson(response.clone())) as
    { error?: unknown; details?: unknown } | undefined;
  const error = body?.error;
  const aboutLink =
    Array.isArray(body?.details) &&
    body.details.some((detail) => (detail as { field?: unknown } | null)?.field === 'token');
  return error !== 'INVALID_MFA_CODE' && error !== 'INVALID_PASSKEY' && !aboutLink;
}

async function readJson(response: Response): Promise<unknown> {
  try {
    return (await response.json()) as unknown;
  } catch {
    return undefined;
  }
}

function unexpected(response: Response): AuthError {
  return new AuthError(
    'UNEXPECTED_RESPONSE',
    `The service answered ${response.status} without its JSON envelope`,
    response.status,
  );
}

function isEnvelope(body: unknown): body is { success: boolean; message: string } {
  return (
    typeof body === 'object' &&
    body !== null &&
    typeof (body as { success?: unknown }).success === 'boolean' &&
    typeof (body as { message?: unknown }).message === 'string'
  );
}
