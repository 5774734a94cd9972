import { SessionAuth } from '../tokens/access-tokens.service';

/** A password login's: the only way into a session before any other method existed. */
export const PASSWORD: readonly string[] = Object.freeze(['pwd']);
/**
 * The password and a one-time code (from an authenticator app, or a recovery code: RFC 8176 has
 * no name of its own for the latter, and `otp` is the closest).
 */
export const PASSWORD_AND_CODE: readonly string[] = Object.freeze(['pwd', 'otp']);

/**
 * A passkey alone (passwordless, with user verification): `hwk` for a key bound to its
 * hardware, `swk` for one synced between devices (RFC 8176).
 */
export const PASSKEY = (method: 'hwk' | 'swk'): readonly string[] => Object.freeze([method]);
/** The password and a passkey: two factors, so `mfa` too. */
export const PASSWORD_AND_PASSKEY = (method: 'hwk' | 'swk'): readonly string[] =>
  Object.freeze(['pwd', method, 'mfa']);

/**
 * A code mailed to the account (or its link): RFC 8176 has no name for proving a mailbox, and
 * `otp` (a one-time password) is the closest, as OpenID providers use it for emailed codes.
 */
export const EMAIL_CODE: readonly string[] = Object.freeze(['otp']);
/** A mailed code and the authenticator app's: two one-time codes from two channels, `mfa`. */
export const EMAIL_CODE_AND_CODE: readonly string[] = Object.freeze(['otp', 'mfa']);
/** A mailed code and a passkey. */
export const EMAIL_CODE_AND_PASSKEY = (method: 'hwk' | 'swk'): readonly string[] =>
  Object.freeze(['otp', method, 'mfa']);
/** Signed in through an identity provider (RFC 8176 `fed`): one factor, the provider's. */
export const FEDERATED: readonly string[] = Object.freeze(['fed']);
export const FEDERATED_AND_CODE: readonly string[] = Object.freeze(['fed', 'otp']);
export const FEDERATED_AND_PASSKEY = (method: 'hwk' | 'swk'): readonly string[] =>
  Object.freeze(['fed', method, 'mfa']);

/**
 * A step-up with the authenticator app's code: a second factor on top of the session's first
 * step, which its `amr` names first, said as a login's second step says it (`["pwd", "otp"]`,
 * `["fed", "otp"]`, `["otp", "mfa"]` after a mailed code; `["hwk", "otp", "mfa"]` after a
 * passkey). Never `["otp"]` alone, which is a mailed code's: a client (and MFA_REQUIRED_ROLES)
 * must be able to tell a second factor from a mailbox. Unknown first step (a token from before
 * `amr`): `otp` alone, which shows no second factor.
 */
export function codeAfterFirstStep(sessionAmr: readonly string[] | undefined): readonly string[] {
  const first = sessionAmr?.[0];
  if (first === 'pwd') return PASSWORD_AND_CODE;
  if (first === 'fed') return FEDERATED_AND_CODE;
  if (first === 'otp') return EMAIL_CODE_AND_CODE;
  if (first === 'hwk' || first === 'swk') return Object.freeze([first, 'otp', 'mfa']);
  return EMAIL_CODE;
}

export interface RefreshClaims {
  sub: string;
  /** The purpose: no other token of the service carries it. */
  typ: 'refresh';
  iat: number;
  exp: number;
  jti: string;
  /** The session family: every token rotated from one login. */
  fam: string;
  /**
   * The session's start (its login), epoch seconds, from which SESSION_MAX_AGE counts: a
   * rotation needs it for the successor's expiry and reads no row for it. Absent from tokens
   * issued before the absolute lifetime; their rotation reads it instead.
   */
  sst?: number;
  /** The session's `auth_time`, epoch seconds; absent from older tokens (read instead). */
  ath?: number;
  /** The session's `amr`; absent from older tokens (read instead). */
  amr?: string[];
}

/** A refresh token just issued, and what the access tokens beside it must say. */
export interface IssuedRefreshToken {
  token: string;
  /** Seconds. */
  expiresIn: number;
  /** Its `exp`, epoch seconds: no access token issued beside it lives longer. */
  expiresAt: number;
  /** The session family, which the access tokens issued beside it name as `sid`. */
  family: string;
  auth: SessionAuth;
}

export function isRefreshClaims(payload: unknown): payload is RefreshClaims {
  const claims = payload as Partial<RefreshClaims> | null;
  return (
    typeof claims === 'object' &&
    claims !== null &&
    claims.typ === 'refresh' &&
    typeof claims.sub === 'string' &&
    typeof claims.exp === 'number' &&
    typeof claims.jti === 'string' &&
    typeof claims.fam === 'string' &&
    (claims.sst === undefined || typeof claims.sst === 'number') &&
    (claims.ath === undefined || typeof claims.ath === 'number') &&
    (claims.amr === undefined ||
      (Array.isArray(claims.amr) && claims.amr.every((method) => typeof method === 'string')))
  );
}

/** The claims' authentication, when the token carries it (tokens issued since it was added). */
export function authOfClaims(claims: RefreshClaims): SessionAuth | undefined {
  return claims.ath === undefined || claims.amr === undefined
    ? undefined
    : { methods: claims.amr, authTime: new Date(claims.ath * 1000) };
}
