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
 * app's code, one of its passkeys (`reauthenticateWithPasskey`), a fresh sign-in at a linked
 * identity provider (`reauthenticateWithProviderUrl`), a code mailed to it
 * (`requestReauthenticationCode`, then `reauthenticate({ emailCode })`).
 */
export type ReauthenticationMethod =
  'password' | 'totp' | 'passkey' | 'identity_provider' | 'email_code';

/** The signed-in user's own account (`GET /users/me`). */
export interface Profile extends VerifiedUser {
  /**
   * False for an account made through an identity provider (or whose password a mailed code's
   * first proof of the address removed): it confirms an email change, its deletion and switching
   * its second factor off with a recent sign-in instead, and sets a password through the reset
   * mail (`forgotPassword`).
   */
  has_password: boolean;
  /** The proofs this account can give a step-up, in the order to offer them: ask for one of these. */
  reauthentication_methods: ReauthenticationMethod[];
}

/** `PATCH /users/me`: each field given is set; `null` (or `''` for `name`) clears it. */
export interface ProfileUpdate {
  username?: string;
  name?: string | null;
  /** An absolute https URL; nothing is uploaded. */
  picture?: string | null;
}

export interface ChangePasswordInput {
  currentPassword: string;
  newPassword: string;
}

export interface EmailChangeInput {
  /** The current password; left out by an account without one (`has_password: false`). */
  password?: string;
  newEmail: string;
  /** Where the emailed link points; its origin must be one of the service's `APP_ORIGINS`. */
  applicationUrl?: string;
}

/** One signed-in device or browser: a refresh-token family. */
export interface SessionInfo {
  /** The access token's `sid`. */
  id: string;
  /** ISO 8601: the login. */
  created_at: string;
  /** ISO 8601: the last refresh. */
  last_used_at: string;
  /**
   * ISO 8601: when the session ends unless refreshed before; the earlier of the refresh token's
   * expiry and the login plus the service's SESSION_MAX_AGE, which no refresh goes past.
   */
  expires_at: string;
  ip: string | null;
  user_agent: string | null;
  /** The session making this request. */
  current: boolean;
}

/** Which sessions `logout` ends: this one, all but this one, or all of the user's (default). */
export type LogoutScope = 'current' | 'others' | 'all';

/** A user as administrators see it. */
export interface AdminUser extends VerifiedUser {
  disabled: boolean;
  /** ISO 8601; null while the account is enabled. */
  disabled_at: string | null;
  /** Two-step sign-in (an authenticator app) is on; `admin.resetSecondFactor` switches it off. */
  two_factor: boolean;
}

export interface UserPage {
  users: AdminUser[];
  /** The page answered, from 1; null for a page asked for by `cursor`. */
  page: number | null;
  page_size: number;
  /** Users matching the search, counted up to 10,000: a lower bound when `total_exact` is false. */
  total: number;
  total_exact: boolean;
  /** Give it as `cursor` for the next page; null on the last page. */
  next_cursor: string | null;
}

export interface UserQuery {
  /** The beginning of an email or username, matched literally and case-insensitively. */
  search?: string;
  /** From 1; fine for the first pages, slow deep into a large list (use `cursor`). */
  page?: number;
  /** The `next_cursor` of the page before: any page as fast as the first. Not with `page`. */
  cursor?: string;
  /** 1 to 100; 20 by default. */
  pageSize?: number;
}

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
 * link) the address is verified already.
 */
export type LinkRefusal = 'expired' | 'replaced' | 'used' | 'verified';

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
 * (single use, five minutes) to `verifySecondFactor` with a code or a recovery code, or to
 * `verifySecondFactorWithPasskey`.
 */
export interface SecondFactorChallenge {
  mfa_required: true;
  challenge: string;
  methods: SecondFactorMethod[];
}

/** Login's answer while its second step is pending: no cookies, no tokens. */
export type SecondFactorRequired = DataEnvelope<SecondFactorChallenge>;

/**
 * What `login()` answers: signed in (`data.user`), or a second step to take first. Narrow it
 * with `isSecondFactorRequired(result)` (or `'mfa_required' in result.data`).
 */
export type LoginResult = SignedInResult | SecondFactorRequired;

/** What `loginForTokens()` answers: the tokens, or a second step to take first. */
export type TokenLoginResult = TokenResponse | SecondFactorRequired;

/** The second step of a login: the challenge and the app's six digits, or a recovery code. */
export type SecondFactorInput =
  | { challenge: string; code: string; recovery_code?: never }
  | { challenge: string; recovery_code: string; code?: never };

/**
 * Proof that the signed-in person owns the account: the password, or the six digits of the
 * authenticator app (`reauthenticate`, `disableTotp`), or for `reauthenticate` the six digits
 * `requestReauthenticationCode` mailed (`emailCode`).
 */
export type IdentityProof =
  | { password: string; code?: never; emailCode?: never }
  | { code: string; password?: never; emailCode?: never }
  | { emailCode: string; password?: never; code?: never };

/** `getSecondFactor()`. */
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

/**
 * Login's body-token answer (`loginForTokens`), for non-browser clients: no envelope. `user.name`
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
   * `this-tab`: `login()` (or, for an account with a second factor, `verifySecondFactor()`)
   * here; `other-tab`: a login in another tab of the app.
   */
  source: 'this-tab' | 'other-tab';
  /** The user who signed in, as the login answered it. */
  user?: User;
}

export interface RegisterInput {
  email: string;
  password: string;
  username: string;
  emailConfig?: { applicationUrl?: string; locale?: string };
}

export interface LoginInput {
  email: string;
  password: string;
}

export interface VerifyEmailInput {
  token: string;
  applicationUrl?: string;
}

export interface EmailLinkInput {
  email: string;
  /** Where the emailed link points; its origin must be one of the service's `APP_ORIGINS`. */
  applicationUrl?: string;
}

/**
 * Signing in with a code by email: the six digits the mail shows, with the address they went to,
 * or the token of the mail's link (the `token` query parameter of the page it opened).
 */
export type EmailCodeInput =
  { email: string; code: string; token?: never } | { token: string; email?: never; code?: never };

/** `POST /auth/reset-password` with `{ email }` (the contract's variant A). */
export interface PasswordResetRequestInput {
  email: string;
}

export interface ResetPasswordInput {
  token: string;
  newPassword: string;
}

/** Why the session ended, as told to `onSessionEnded` listeners. */
export type SessionEndReason =
  /** `logout()` in this tab or another tab of the app. */
  | 'logout'
  /** The refresh token was refused: expired, revoked (logout elsewhere, password reset) or reused. */
  | 'refresh-failed'
  /** `deleteAccount()` succeeded, here or in another tab. */
  | 'account-deleted';

/** One of the signed-in user's passkeys (`listPasskeys()`). */
export interface Passkey {
  id: string;
  name: string;
  /** ISO 8601. */
  created_at: string;
  /** ISO 8601; null until it first signs in. */
  last_used_at: string | null;
}

/** An identity provider one can sign in with (`GET /auth/providers`). */
export interface IdentityProvider {
  id: string;
  /** What the sign-in button says. */
  name: string;
}

/** An identity provider linked to the signed-in account. */
export interface LinkedIdentity {
  provider: string;
  email: string | null;
  /** ISO 8601. */
  created_at: string;
}

/**
 * What a provider's round trip left in the address it came back to: nothing (signed in, linked,
 * or the session stepped up), an `error` (`ACCOUNT_EXISTS`, `PROVIDER_ERROR`, or after a step-up
 * `IDENTITY_NOT_FOUND`: another identity than the linked one signed in), or the second step the
 * account asks for (answer it with `verifySecondFactor`).
 */
export type ProviderReturn =
  | { kind: 'done' }
  | { kind: 'error'; error: string }
  | { kind: 'second_factor'; challenge: string; methods: string[] };
