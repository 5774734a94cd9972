import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { Strategy } from 'passport-jwt';
import { REFRESH_VERIFY_OPTIONS } from '../../tokens/jwt-options';
import { RefreshTokenKey } from '../../tokens/refresh-token-key';
import { RefreshClaims, isRefreshClaims } from '../../sessions/refresh-claims';
import { keyFromHeader } from './key-from-header';
import { refreshToken } from './token-extractors';

export const REFRESH_STRATEGY = 'refresh-token';

/**
 * Refresh token from the `refresh_token` cookie, verified by passport-jwt with HS256 and the
 * refresh secret only. Checks signature, expiry and purpose only; whether the session is still
 * live is decided by the rotation itself.
 */
@Injectable()
export class RefreshTokenStrategy extends PassportStrategy(Strategy, REFRESH_STRATEGY) {
  constructor(key: RefreshTokenKey) {
    super({
      jwtFromRequest: refreshToken,
      secretOrKeyProvider: keyFromHeader(key.keyFor),
      ...REFRESH_VERIFY_OPTIONS,
    });
  }

  validate(payload: unknown): RefreshClaims | null {
    return isRefreshClaims(payload) ? payload : null;
  }
}
