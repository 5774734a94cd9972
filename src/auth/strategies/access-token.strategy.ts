import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { Strategy } from 'passport-jwt';
import { HttpRequest } from '../../common/http/http-request';
import { JwtConfig } from '../../config/config.sections';
import { AccessTokenKeys } from '../../tokens/access-token-keys';
import { AccessTokensService } from '../../tokens/access-tokens.service';
import { accessVerifyOptions } from '../../tokens/jwt-options';
import { User } from '../../users/user.entity';
import { SessionsService } from '../../sessions/sessions.service';
import { SessionCheck, UsersService } from '../../users/users.service';
import { keyFromHeader } from './key-from-header';
import { accessToken } from './token-extractors';

export const ACCESS_STRATEGY = 'access-token';

/**
 * Access token from `Authorization: Bearer` or the `access_token` cookie (the header wins),
 * verified by passport-jwt with the configured algorithm only (HS256 or ES256), `typ: at+jwt`,
 * this service's issuer and audience, and for a key pair a configured `kid` only.
 */
@Injectable()
export class AccessTokenStrategy extends PassportStrategy(Strategy, ACCESS_STRATEGY) {
  /** The sessions' owner answers whether the token's session is live. */
  private readonly sessionIsLive: SessionCheck;

  constructor(
    jwt: JwtConfig,
    keys: AccessTokenKeys,
    private readonly users: UsersService,
    sessions: SessionsService,
  ) {
    super({
      jwtFromRequest: accessToken,
      secretOrKeyProvider: keyFromHeader(keys.keyFor),
      ...accessVerifyOptions(jwt, keys),
      passReqToCallback: true,
    });
    this.sessionIsLive = (manager, userId, sessionId) =>
      sessions.isFamilyLive(manager, userId, sessionId);
  }

  /**
   * Right signature and kind, not revoked since (the user's token version still matches), the
   * session the token was issued to (`sid`) not ended, and the account not disabled (disabling
   * also bumps the version; this holds whatever a token says).
   * A refusal is `null` (passport "fail"), so a guard may go on to its next strategy; only a
   * fault (database down) is thrown.
   */
  async validate(req: HttpRequest, payload: unknown): Promise<User | null> {
    if (!AccessTokensService.isAccessClaims(payload)) return null;
    const user = await this.users.findForAccessCheck(payload.sub, payload.sid, this.sessionIsLive);
    if (!user || user.tokenVersion !== payload.ver || user.disabledAt) return null;
    // For the routes that act on "this session" (logout's scopes, the sessions list), and those
    // that need a recent sign-in.
    req.sessionId = payload.sid;
    req.authTime = payload.auth_time;
    // For MFA_REQUIRED_ROLES, judged by how the token was obtained, and for a step-up by code,
    // which adds to the session's first step.
    req.amr = Array.isArray(payload.amr)
      ? payload.amr.filter((method): method is string => typeof method === 'string')
      : undefined;
    // For GET /auth/session, which tells a page how long its (unreadable) cookie has left.
    req.accessExpiresAt = payload.exp;
    return user;
  }
}
