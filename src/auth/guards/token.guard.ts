import { ExecutionContext, Injectable, Type } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard, IAuthGuard } from '@nestjs/passport';
import { HttpRequest } from '../../common/http/http-request';
import { AppException } from '../../common/errors/app.exception';
import { OriginPolicy } from '../../common/http/origin.policy';
import { RouteMetadataCache } from '../../common/throttling/route-metadata.cache';
import { Metrics } from '../../metrics/metrics.service';
import { ACCESS_STRATEGY } from '../strategies/access-token.strategy';
import { REFRESH_STRATEGY } from '../strategies/refresh-token.strategy';
import { accessToken, bearerToken, refreshToken } from '../strategies/token-extractors';
import { AuthCookies } from '../auth-cookies.service';
import { APP_NAVIGATION } from '../decorators/app-navigation.decorator';

/**
 * A passport guard (AuthenticationGuard picks one per route) that answers every failure with
 * `401 INVALID_TOKEN`, and refuses a cookie-authenticated state change from a foreign origin
 * (CSRF) before looking at the token: a POST and the like from a page not on the allow-list, or
 * a navigation of `@AppNavigation()` from anywhere but the app's own pages.
 */
function tokenGuard(strategies: string[], kind: string): Type<IAuthGuard> {
  const refreshOnly = strategies.length === 1 && strategies[0] === REFRESH_STRATEGY;

  @Injectable()
  class TokenGuard extends AuthGuard(strategies) {
    private readonly reflector: Reflector;

    constructor(
      private readonly origins: OriginPolicy,
      reflector: Reflector,
      // Only the refresh guard counts, and clears the cookies of the token it refuses.
      private readonly metrics: Metrics,
      private readonly cookies: AuthCookies,
    ) {
      super();
      this.reflector = new RouteMetadataCache(reflector);
    }

    /**
     * A refresh token the guard refuses is of no further use: the browser must stop sending it.
     * Without one sent there is nothing to clear, and the access cookie may still be good.
     */
    private refused(context: ExecutionContext): void {
      this.metrics.refreshed('invalid');
      const http = context.switchToHttp();
      if (refreshToken(http.getRequest<HttpRequest>()) !== null)
        this.cookies.clear(http.getResponse());
    }

    override canActivate(context: ExecutionContext) {
      const req = context.switchToHttp().getRequest<HttpRequest>();
      const byCookie = refreshOnly || bearerToken(req) === null;
      if (byCookie && (this.origins.refusesChange(req) || this.refusesNavigation(context))) {
        throw new AppException('FORBIDDEN_ORIGIN');
      }
      return super.canActivate(context);
    }

    private refusesNavigation(context: ExecutionContext): boolean {
      const marked = this.reflector.getAllAndOverride<boolean | undefined>(APP_NAVIGATION, [
        context.getHandler(),
        context.getClass(),
      ]);
      return marked === true && this.origins.refusesNavigation(context.switchToHttp().getRequest());
    }

    override handleRequest<T>(
      error: unknown,
      principal: T | false,
      info: unknown,
      context: ExecutionContext,
    ): T {
      if (error instanceof Error) throw error;
      if (!principal) {
        // An expired, malformed or wrong-kind token never reaches the rotation, which counts the
        // rest: a refresh refused here is an invalid exchange all the same.
        if (refreshOnly) this.refused(context);
        // One failure per strategy tried: passport gives a list when the guard names several.
        const failures = (Array.isArray(info) ? info : [info]) as Array<
          { name?: string } | undefined
        >;
        const expired = failures.some((failure) => failure?.name === 'TokenExpiredError');
        const message = expired
          ? `The ${kind} token has expired`
          : `The ${kind} token is missing or invalid`;
        const presented = accessToken(context.switchToHttp().getRequest<HttpRequest>()) !== null;
        throw new AppException('INVALID_TOKEN', {
          message,
          headers: refreshOnly ? undefined : bearerChallenge(presented, message),
        });
      }
      return principal;
    }
  }
  return TokenGuard;
}

/**
 * RFC 6750's challenge on a route that takes an access token: the bare scheme when no token came
 * (a client learns how to authenticate), `invalid_token` and why when one was refused.
 */
function bearerChallenge(presented: boolean, description: string): Record<string, string> {
  return {
    'WWW-Authenticate': presented
      ? `Bearer error="invalid_token", error_description="${description}"`
      : 'Bearer',
  };
}

export const AccessTokenGuard = tokenGuard([ACCESS_STRATEGY], 'access');
export const RefreshTokenGuard = tokenGuard([REFRESH_STRATEGY], 'refresh');
/**
 * Logout takes the access token, or failing that the refresh cookie: a user whose access token
 * has expired can still end their sessions instead of leaving a live refresh token behind.
 */
export const LogoutGuard = tokenGuard([ACCESS_STRATEGY, REFRESH_STRATEGY], 'access');
