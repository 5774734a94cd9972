// The second factor: a login's second step (the authenticator app's code or a recovery code), and
// the account's side of it. Reached as `auth.secondFactor` once `secondFactor()` is among the
// client's plugins; a passkey as the second step is the passkeys part's.
import type { AuthClientPlugin, SessionEngine } from './plugin.js';
import { digits, identityProof } from './proofs.js';
import { isTokenResponse } from './sign-in-result.js';
import type { DataEnvelope, MessageEnvelope, SignedInResult, TokenResponse } from './types.js';

/** The second step of a login: the challenge and the app's six digits, or a recovery code. */
export type SecondFactorInput =
  | { challenge: string; code: string; recovery_code?: never }
  | { challenge: string; recovery_code: string; code?: never };

/** `auth.secondFactor.get()`. */
export interface SecondFactorStatus {
  /** Two-step sign-in with an authenticator app is on. */
  totp: boolean;
  /** Unused recovery codes. */
  recovery_codes_left: number;
}

/** A pending enrolment (`beginTotpEnrolment()`): off until `confirmTotpEnrolment` sends a code. */
export interface TotpEnrolment {
  /** Base32, for typing into an app by hand (SHA-1, 6 digits, 30 s). */
  secret: string;
  /** `otpauth://totp/…`: what the QR code holds; a link to it opens an app on a phone. */
  otpauth_url: string;
  /** The QR code as an SVG data URL: the `src` of an `<img>`. */
  qr_svg: string;
}

/** Ten single-use recovery codes, shown this once: the service keeps only their hashes. */
export interface RecoveryCodes {
  recovery_codes: string[];
}

/** `createAuthClient({ baseUrl, plugins: [secondFactor()] })`, then `auth.secondFactor.verify(…)`. */
export const secondFactor = (): AuthClientPlugin<'secondFactor', SecondFactorClient> => ({
  id: 'secondFactor',
  create: (engine) => new SecondFactorClient(engine),
});

export class SecondFactorClient {
  constructor(private readonly engine: SessionEngine) {}

  /**
   * The second step of a sign-in: the challenge it answered, with the authenticator app's six
   * digits (`code`; spaces are dropped) or one of the recovery codes (`recovery_code`). Signs in
   * exactly as a one-step sign-in does. `401 INVALID_MFA_CODE`: a wrong or used code, try again
   * with the same challenge; `401 INVALID_TOKEN`: the challenge is used or has expired (five
   * minutes), sign in again.
   */
  verify(input: SecondFactorInput): Promise<SignedInResult> {
    return this.engine.signIn<SignedInResult>('/auth/mfa/verify', secondStep(input));
  }

  /** `password.signInForTokens`' second step: as `verify`, answering the tokens. */
  verifyForTokens(input: SecondFactorInput): Promise<TokenResponse> {
    return this.engine.requestTokens<TokenResponse>(
      '/auth/mfa/verify',
      secondStep(input),
      isTokenResponse,
    );
  }

  /** Whether two-step sign-in is on, and how many recovery codes are left. */
  get(): Promise<DataEnvelope<SecondFactorStatus>> {
    return this.engine.authed('GET', '/users/me/mfa');
  }

  /**
   * Starts switching two-step sign-in on: a new secret, as a QR code (`qr_svg`, an `<img>`'s
   * `src`) and as text to type. Nothing changes until `confirmTotpEnrolment` sends a code
   * computed from it; calling this again replaces the secret. Needs a recent sign-in (`403
   * REAUTHENTICATION_REQUIRED`: `auth.reauthenticate`, then call again).
   */
  beginTotpEnrolment(): Promise<DataEnvelope<TotpEnrolment>> {
    return this.engine.authed('POST', '/users/me/mfa/totp');
  }

  /**
   * Switches two-step sign-in on with the app's first code (spaces are dropped) and answers the
   * ten recovery codes, shown this once. `401 INVALID_MFA_CODE` for a wrong code: the session
   * is fine, ask again.
   */
  confirmTotpEnrolment(code: string): Promise<DataEnvelope<RecoveryCodes>> {
    return this.engine.authed('POST', '/users/me/mfa/totp/confirm', { code: digits(code) });
  }

  /** Ten new recovery codes; the old ones stop working. Needs a recent sign-in. */
  regenerateRecoveryCodes(): Promise<DataEnvelope<RecoveryCodes>> {
    return this.engine.authed('POST', '/users/me/mfa/recovery-codes');
  }

  /**
   * Switches two-step sign-in off, confirmed by a code of the app or the password (`401
   * INVALID_MFA_CODE`, `403 INVALID_PASSWORD`); an account without a password may give neither
   * (`disableTotp()`), its recent sign-in is the proof. Needs a recent sign-in.
   */
  disableTotp(proof?: { password: string } | { code: string }): Promise<MessageEnvelope> {
    return this.engine.authed('DELETE', '/users/me/mfa/totp', proof ? identityProof(proof) : {});
  }
}

/**
 * The fields given, the code without its spaces; a body with both answers (or neither) goes as
 * it is, for the service to refuse with 400 VALIDATION_ERROR naming them.
 */
function secondStep(input: SecondFactorInput): Record<string, string | undefined> {
  return {
    challenge: input.challenge,
    code: input.code === undefined ? undefined : digits(input.code),
    recovery_code: input.recovery_code,
  };
}
