import { Injectable } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import { randomUUID } from 'node:crypto';
import { JwtConfig } from '../config/config.sections';
import { BlockingHooks } from '../hooks/blocking-hooks';
import { User } from '../users/user.entity';
import { AccessTokenKeys, JwkSet } from './access-token-keys';
import { epochSeconds } from './epoch-seconds';
import { SessionClaims } from './session-claims';

export type { JwkSet, PublishedJwk } from './access-token-keys';

/** An access token's claims (RFC 9068), and what the service needs to revoke it. */
export interface AccessClaims {
  iss: string;
  aud: string;
  sub: string;
  iat: number;
  exp: number;
  /** Random per token: two tokens for one user in one second still differ. */
  jti: string;
  /** The session family (the refresh-token chain of one login) the token was issued to. */
  sid: string;
  /** The user's token version at issue; a bump (logout, reset, theft) revokes the token. */
  ver: number;
  role: string;
  /** RFC 9068: the client the token was issued to (JWT_CLIENT_ID). */
  client_id: string;
  /**
   * When the session was last authenticated (OpenID Connect's claim), epoch seconds. Absent
   * from tokens issued before it was added (they count as not recent).
   */
  auth_time?: number;
  /** The methods that authenticated it (RFC 8176): `pwd`, `otp`, `hwk`, `mfa`… */
  amr?: string[];
  /** The session's active organization (POST /auth/organization), and the user's role in it. */
  org_id?: string;
  org_role?: string;
}

/** How a session was authenticated: its access tokens' `amr` and `auth_time`. */
export interface SessionAuth {
  /** RFC 8176 method names, in the order they were used. */
  methods: readonly string[];
  /** When the session was last authenticated: its login, or a reauthentication since. */
  authTime: Date;
}

export interface IssuedAccessToken {
  token: string;
  /** Seconds. */
  expiresIn: number;
}

/**
 * Access tokens through JwtModule's JwtService (registered in TokensModule with the configured
 * key, algorithm, `typ`, issuer, audience and lifetime).
 */

/** The refresh token a session's access token is issued beside. */
export interface SessionRefresh {
  token: string;
  expiresIn: number;
  expiresAt: number;
  family: string;
  auth: SessionAuth;
  /** False: no module adds claims to this session's tokens, and none is asked. */
  moduleClaims?: boolean;
}

/** What a client gets for a session: in cookies, or in the body-token response. */
export interface SessionTokens {
  accessToken: string;
  accessExpiresIn: number;
  refreshToken: string;
  refreshExpiresIn: number;
}
@Injectable()
export class AccessTokensService {
  constructor(
    private readonly jwt: JwtService,
    private readonly keys: AccessTokenKeys,
    private readonly config: JwtConfig,
    private readonly sessionClaims: SessionClaims,
    private readonly hooks?: BlockingHooks,
  ) {}

  /** The public keys other services verify with; none for HS256, whose secret is never shared. */
  get jwks(): Readonly<JwkSet> {
    return this.keys.jwks;
  }

  /**
   * A session's tokens for its client: a new access token naming the refresh token's family
   * (`sid`), beside that refresh token, and expiring no later than it: near the session's end
   * (SESSION_MAX_AGE) the access token must not outlive the session.
   */
  sessionTokens(
    user: User,
    refresh: SessionRefresh,
    extra?: Record<string, string>,
  ): SessionTokens | Promise<SessionTokens> {
    const { family, auth, expiresAt } = refresh;
    // Asynchronous only with a custom_access_token hook: without one, no promise is made.
    if (this.hooks?.customizesAccessTokens) {
      return this.issueCustomized(user, family, auth, expiresAt, extra).then((access) =>
        tokensOf(access, refresh),
      );
    }
    return tokensOf(this.issue(user, family, auth, expiresAt, extra), refresh);
  }

  /**
   * `sessionTokens` for a session that goes on (a refresh, a step-up): its access token carries
   * what the modules' SessionClaims sources say of it (the active organization). A session
   * without any (its refresh token says so) costs no read.
   */
  async renewedSessionTokens(user: User, refresh: SessionRefresh): Promise<SessionTokens> {
    const extra =
      refresh.moduleClaims === false ? {} : await this.sessionClaims.of(user.id, refresh.family);
    return this.sessionTokens(user, refresh, extra);
  }

  /**
   * A token for `user` in the session family `sessionId`, authenticated as `auth` says, for
   * ACCESS_TOKEN_TTL or until `notAfter` (epoch seconds), whichever comes first.
   */
  issue(
    user: User,
    sessionId: string,
    auth: SessionAuth,
    notAfter = Infinity,
    extra?: Record<string, string>,
  ): IssuedAccessToken {
    // `iat` fixed here, so the lifetime cannot slip past `notAfter` across a second's turn.
    const iat = epochSeconds();
    const claims = this.claimsOf(user, sessionId, auth, iat, extra);
    const expiresIn = Math.max(0, Math.min(this.config.accessTtl, notAfter - iat));
    const token = this.jwt.sign(claims, { subject: user.id, jwtid: randomUUID(), expiresIn });
    return { token, expiresIn };
  }

  /**
   * As `issue`, with the claims the custom_access_token hooks add to the token's (which they see
   * whole); the reserved claims stay the service's.
   */
  private async issueCustomized(
    user: User,
    sessionId: string,
    auth: SessionAuth,
    notAfter: number,
    extra?: Record<string, string>,
  ): Promise<IssuedAccessToken> {
    const iat = epochSeconds();
    const claims = this.claimsOf(user, sessionId, auth, iat, extra);
    const expiresIn = Math.max(0, Math.min(this.config.accessTtl, notAfter - iat));
    const jti = randomUUID();
    const { issuer: iss, audience: aud } = this.config;
    const whole = { iss, aud, sub: user.id, ...claims, exp: iat + expiresIn, jti };
    const added = await this.hooks!.accessTokenClaims(user, whole);
    const token = this.jwt.sign(
      { ...added, ...claims },
      { subject: user.id, jwtid: jti, expiresIn },
    );
    return { token, expiresIn };
  }

  private claimsOf(
    user: User,
    sessionId: string,
    auth: SessionAuth,
    iat: number,
    extra?: Record<string, string>,
  ): Omit<AccessClaims, 'iss' | 'aud' | 'sub' | 'exp' | 'jti'> {
    // A module's claims first: the service's own cannot be replaced.
    return {
      ...extra,
      sid: sessionId,
      ver: user.tokenVersion,
      role: user.role,
      iat,
      client_id: this.config.clientId,
      auth_time: epochSeconds(auth.authTime),
      amr: [...auth.methods],
    };
  }

  /**
   * The claims of a token the service issued and would accept (algorithm, key, type, issuer,
   * audience, expiry); a refused token throws jsonwebtoken's error. Requests are checked by the
   * passport strategy instead; this is for code that holds a token outside a request.
   */
  verify(token: string): AccessClaims {
    const payload: unknown = this.jwt.verify(token);
    if (!AccessTokensService.isAccessClaims(payload)) throw new Error('not an access token');
    return payload;
  }

  /** The token's claims are well-formed and of the access kind (signature already checked). */
  static isAccessClaims(payload: unknown): payload is AccessClaims {
    const claims = payload as Partial<AccessClaims> | null;
    return (
      typeof claims === 'object' &&
      claims !== null &&
      typeof claims.sub === 'string' &&
      typeof claims.sid === 'string' &&
      typeof claims.ver === 'number' &&
      typeof claims.exp === 'number'
    );
  }
}

function tokensOf(
  access: IssuedAccessToken,
  refresh: { token: string; expiresIn: number },
): SessionTokens {
  return {
    accessToken: access.token,
    accessExpiresIn: access.expiresIn,
    refreshToken: refresh.token,
    refreshExpiresIn: refresh.expiresIn,
  };
}
