// A sign-in's answers told apart: a session, the tokens, or a second step to take first.
import type {
  LoginResult,
  SecondFactorRequired,
  TokenLoginResult,
  TokenResponse,
} from './types.js';

/**
 * True when a sign-in (a password, an emailed code, `signInForTokens`) answered a second step
 * instead of a session: show a field for the authenticator app's code and send it, with
 * `result.data.challenge`, to `auth.secondFactor.verify` (or `auth.passkeys.verifySecondFactor`
 * when `methods` lists `passkey`). Narrows the result either way.
 */
export function isSecondFactorRequired(
  result: LoginResult | TokenLoginResult,
): result is SecondFactorRequired {
  return isChallengeEnvelope(result);
}

/** `{ success: true, data: { mfa_required: true, challenge } }`, as read from the wire. */
export function isChallengeEnvelope(body: unknown): body is SecondFactorRequired {
  const data = (body as { data?: unknown } | null | undefined)?.data;
  return (
    typeof data === 'object' &&
    data !== null &&
    (data as { mfa_required?: unknown }).mfa_required === true &&
    typeof (data as { challenge?: unknown }).challenge === 'string'
  );
}

export function isTokenResponse(body: unknown): boolean {
  return (
    typeof body === 'object' &&
    body !== null &&
    typeof (body as TokenResponse).access_token === 'string' &&
    typeof (body as TokenResponse).refresh_token === 'string'
  );
}
