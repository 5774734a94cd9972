// Login's two answers told apart, and the second step's body as the service takes it.
import type {
  LoginResult,
  SecondFactorInput,
  SecondFactorRequired,
  TokenLoginResult,
} from './types.js';

/**
 * True when a login (`login()` or `loginForTokens()`) answered a second step instead of a
 * session: show a field for the authenticator app's code and send it, with
 * `result.data.challenge`, to `verifySecondFactor`. Narrows the result either way.
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

/**
 * The six digits as the service takes them: authenticator apps show `123 456`, and a pasted
 * code often brings the space along.
 */
export const digits = (code: string): string => code.replace(/\s+/g, '');

/**
 * The fields given, the code without its spaces; a body with both answers (or neither) goes as
 * it is, for the service to refuse with 400 VALIDATION_ERROR naming them.
 */
export function secondStep(input: SecondFactorInput): Record<string, string | undefined> {
  return {
    challenge: input.challenge,
    code: input.code === undefined ? undefined : digits(input.code),
    recovery_code: input.recovery_code,
  };
}
