import { SessionAuth } from '../tokens/access-tokens.service';

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
  /**
   * Whether a module adds claims to the session's access tokens (its row's `module_claims`): a
   * refresh asks the modules only then. Absent from older tokens (the row is read instead).
   */
  mcl?: boolean;
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
  /** Whether the access tokens beside it carry claims a module adds (SessionClaims). */
  moduleClaims: boolean;
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
    (claims.mcl === undefined || typeof claims.mcl === 'boolean') &&
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
