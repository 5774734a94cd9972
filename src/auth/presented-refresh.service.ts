import { Inject, Injectable } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import { HttpRequest } from '../common/http/http-request';
import { RefreshClaims, isRefreshClaims } from '../sessions/refresh-claims';
import { REFRESH_JWT } from '../tokens/jwt-options';
import { refreshToken } from './strategies/token-extractors';

/**
 * The session's refresh token, when a browser sent its cookie along (it travels to /api/v1/auth):
 * a step-up rotates it as a refresh would, so the app's other tabs keep the grace window. Any
 * token that does not verify is as good as none: the step-up then replaces the session's current
 * one.
 */
@Injectable()
export class PresentedRefresh {
  constructor(@Inject(REFRESH_JWT) private readonly refreshJwt: JwtService) {}

  of(req: HttpRequest): RefreshClaims | undefined {
    const token = refreshToken(req);
    if (token === null) return undefined;
    try {
      const claims: unknown = this.refreshJwt.verify(token);
      return isRefreshClaims(claims) ? claims : undefined;
    } catch {
      return undefined;
    }
  }
}
