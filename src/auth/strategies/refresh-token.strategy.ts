import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { Strategy } from 'passport-jwt';
import { JWT_ALGORITHMS } from '../../tokens/jwt-signer';
import { RefreshClaims, RefreshTokensService } from '../../tokens/refresh-tokens.service';
import { refreshToken } from './token-extractors';

export const REFRESH_STRATEGY = 'refresh-token';

/**
 * Refresh token from the `refresh_token` cookie. Checks signature, expiry and kind only; whether
 * the session is still live is decided by the rotation itself.
 */
@Injectable()
export class RefreshTokenStrategy extends PassportStrategy(Strategy, REFRESH_STRATEGY) {
  constructor(tokens: RefreshTokensService) {
    super({
      jwtFromRequest: refreshToken,
      secretOrKey: tokens.signer.key as unknown as string,
      algorithms: JWT_ALGORITHMS,
      ignoreExpiration: false,
    });
  }

  validate(payload: unknown): RefreshClaims | null {
    return RefreshTokensService.isRefreshClaims(payload) ? payload : null;
  }
}
