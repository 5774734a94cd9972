import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { RefreshClaims, RefreshTokensService } from '../../tokens/refresh-tokens.service';
import { JwtVerifierStrategy } from './jwt-verifier.strategy';
import { refreshToken } from './token-extractors';

export const REFRESH_STRATEGY = 'refresh-token';

/**
 * Refresh token from the `refresh_token` cookie, verified with HS256 and the refresh secret only.
 * Checks signature, expiry and kind only; whether the session is still live is decided by the
 * rotation itself.
 */
@Injectable()
export class RefreshTokenStrategy extends PassportStrategy(JwtVerifierStrategy, REFRESH_STRATEGY) {
  constructor(tokens: RefreshTokensService) {
    super({ extract: refreshToken, verify: (token: string) => tokens.signer.verify(token) });
  }

  validate(payload: unknown): RefreshClaims | null {
    return RefreshTokensService.isRefreshClaims(payload) ? payload : null;
  }
}
