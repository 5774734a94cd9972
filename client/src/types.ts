import type { AuthError } from './auth-error.js';

/** The service's error codes (`error` in a failure envelope). Branch on these, never on `message`. */
export const SERVICE_ERROR_CODES = [
  'LOGIN_FAILED',
  'REGISTRATION_FAILED',
  'INVALID_TOKEN',
  'USER_NOT_FOUND',
  'EMAIL_ALREADY_VERIFIED',
  'EMAIL_NOT_FOUND',
  'EMAIL_SERVICE_ERROR',
  'RATE_LIMITED',
  'VALIDATION_ERROR',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'FORBIDDEN_ORIGIN',
  'FORBIDDEN',
  'INVALID_PASSWORD',
  'ACCOUNT_DISABLED',
  'CANNOT_MODIFY_SELF',
  'NOT_FOUND',
  'SESSION_NOT_FOUND',
  'WEBHOOK_NOT_FOUND',
  'INVALID_MFA_CODE',
  'REAUTHENTICATION_REQUIRED',
  'MFA_ENROLMENT_REQUIRED',
  'SECOND_FACTOR_REQUIRED',
  'INVALID_PASSKEY',
  'PASSKEY_NOT_FOUND',
  'LAST_SIGN_IN_METHOD',
  'ACCOUNT_EXISTS',
  'PROVIDER_ERROR',
  'PROVIDER_NOT_FOUND',
  'IDENTITY_NOT_FOUND',
  'SSO_NOT_CONFIGURED',
  'SSO_REQUIRED',
  'REGISTRATION_REJECTED',
  'HOOK_UNAVAILABLE',
  'ORGANIZATION_NOT_FOUND',
  'ORGANIZATION_EXISTS',
  'LAST_OWNER',
  'ALREADY_MEMBER',
  'INVITATION_EMAIL_MISMATCH',
  'INTERNAL_ERROR',
  'SERVICE_UNAVAILABLE',
] as const;

export type ServiceErrorCode = (typeof SERVICE_ERROR_CODES)[number];

/**
 * Raised by the SDK itself, never by the service: the request did not reach it (`NETWORK_ERROR`),
 * its answer was not the envelope (`UNEXPECTED_RESPONSE`: a proxy's error page, a cut
 * connection), or the caller's own `AbortSignal` stopped it (`ABORTED`). For passkeys, the
 * browser's prompt: dismissed or timed out (`PASSKEY_CANCELLED`), or unable to run at all
 * (`PASSKEY_FAILED`: no WebAuthn, a page outside the relying party, a passkey there already).
 */
export type ClientErrorCode =
  'NETWORK_ERROR' | 'UNEXPECTED_RESPONSE' | 'ABORTED' | 'PASSKEY_CANCELLED' | 'PASSKEY_FAILED';

export type ErrorCode = ServiceErrorCode | ClientErrorCode;

/** A user as the service returns it in `data.user`. */
export interface User {
  id: string;
  email: string;
  username: string;
  /** Display name; null when none is set. */
  name: string | null;
  /** An https URL of the user's picture; null when none is set. */
  picture: string | null;
  role: 'user' | 'admin';
  email_verified: boolean;
  /** ISO 8601. */
  created_at: string;
  /** ISO 8601. */
  updated_at: string;
}

export interface VerifiedUser extends User {
  /** ISO 8601. */
  verified_at: string | null;
}

/**
 * A proof an account can give `reauthenticate` (a step-up): its password, its authenticator
 * app's code, one of its passkeys (`passkeys.reauthenticate`), a fresh sign-in at a linked
 * identity provider (`identityProviders.reauthenticateUrl`), a code mailed to it
 * (`requestReauthenticationCode`, then `reauthenticate({ emailCode })`).
 */
export type ReauthenticationMethod =
  'password' | 'totp' | 'passkey' | 'identity_provider' | 'email_code';

/** Which sessions `logout` ends: this one, all but this one, or all of the user's (default). */
export type LogoutScope = 'current' | 'others' | 'all';

/** A success without data (emails sent, logout, password set). */
export interface MessageEnvelope {
  success: true;
  message: string;
}

export interface DataEnvelope<T> extends MessageEnvelope {
  data: T;
}

/** A way into an account the service offers (`GET /auth/sign-in-methods`). */
export type SignInMethod = 'password' | 'passkey' | 'email_code' | 'identity_provider';

/** One wrong field of a request: `{ field: 'username', message: 'username must be …' }`. */
export interface FieldError {
  field: string;
  message: string;
  /** For `field: 'token'` of a refused emailed link: why it no longer works. */
  reason?: LinkRefusal;
}

/**
 * Why the service refused an emailed link it had issued: it expired unused, a newer link of its
 * kind replaced it, it was used (or a change to the account withdrew it), or (a verification
 * link) the address is verified already; (an invitation) an admin withdrew it.
 */
export type LinkRefusal = 'expired' | 'replaced' | 'used' | 'verified' | 'withdrawn';

export interface FailureEnvelope {
  success: false;
  message: string;
  error: ServiceErrorCode;
  /** On validation failures: each wrong field and why. */
  details?: FieldError[];
}

/** `data.user`, the shape most calls answer. */
export type UserResult = DataEnvelope<{ user: User }>;

/**
 * What a call that starts or renews the session answers (login, its second step, a passkey or
 * an emailed code, refresh, reauthenticate, a password change): the user, and `expires_in`, the
 * seconds the new access token lives (the SDK renews the session ahead of it by itself).
 */
export type SignedInResult = DataEnvelope<{ user: User; expires_in: number }>;

/** How the second step of a login may be answered, in the order to offer them. */
export type SecondFactorMethod = 'passkey' | 'totp' | 'recovery_code';

/**
 * The password was right, and the account has a second factor: no session yet. Send `challenge`
 * (single use, five minutes) to `secondFactor.verify` with a code or a recovery code, or to
 * `passkeys.verifySecondFactor`.
 */
export interface SecondFactorChallenge {
  mfa_required: true;
  challenge: string;
  methods: SecondFactorMethod[];
}

/** Login's answer while its second step is pending: no cookies, no tokens. */
export type SecondFactorRequired = DataEnvelope<SecondFactorChallenge>;

/**
 * What a sign-in answers (`password.signIn`, `emailCode.signIn`): signed in (`data.user`), or a
 * second step to take first. Narrow it with `isSecondFactorRequired(result)` (or
 * `'mfa_required' in result.data`).
 */
export type LoginResult = SignedInResult | SecondFactorRequired;

/** What `password.signInForTokens()` answers: the tokens, or a second step to take first. */
export type TokenLoginResult = TokenResponse | SecondFactorRequired;

/**
 * Proof that the signed-in person owns the account: the password, or the six digits of the
 * authenticator app (`reauthenticate`, `secondFactor.disableTotp`), or for `reauthenticate` the six digits
 * `requestReauthenticationCode` mailed (`emailCode`).
 */
export type IdentityProof =
  | { password: string; code?: never; emailCode?: never }
  | { code: string; password?: never; emailCode?: never }
  | { emailCode: string; password?: never; code?: never };

/**
 * Login's body-token answer (`password.signInForTokens`), for non-browser clients: no envelope. `user.name`
 * is the contract's name for the username.
 */
export interface TokenResponse {
  access_token: string;
  refresh_token: string;
  token_type: 'Bearer';
  /** Seconds until the access token expires. */
  expires_in: number;
  user: {
    id: string;
    email: string;
    name: string;
    email_verified: boolean;
    picture: string | null;
    created_at: string;
    updated_at: string;
  };
}

/** What `status()` found out. */
export type SessionStatus =
  /** A session is alive: here is its user. */
  | { state: 'signed-in'; user: User }
  /** No session: no cookie, or the service refused it. */
  | { state: 'signed-out' }
  /**
   * The service could not say (unreachable, 5xx, 429): the session may well be alive. `error`
   * says why, with `retryAfter` when the service named a wait.
   */
  | { state: 'unavailable'; error: AuthError };

/** Told to `onSessionStarted` listeners. */
export interface SessionStart {
  /**
   * `this-tab`: a sign-in here (for an account with a second factor, its second step);
   * `other-tab`: a sign-in in another tab of the app.
   */
  source: 'this-tab' | 'other-tab';
  /** The user who signed in, as the login answered it. */
  user?: User;
}

export interface EmailLinkInput {
  email: string;
  /** Where the emailed link points; its origin must be one of the service's `APP_ORIGINS`. */
  applicationUrl?: string;
}

/** Why the session ended, as told to `onSessionEnded` listeners. */
export type SessionEndReason =
  /** `logout()` in this tab or another tab of the app. */
  | 'logout'
  /** The refresh token was refused: expired, revoked (logout elsewhere, password reset) or reused. */
  | 'refresh-failed'
  /** `account.delete()` succeeded, here or in another tab. */
  | 'account-deleted';
