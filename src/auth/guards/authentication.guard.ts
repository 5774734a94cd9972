import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { IAuthGuard } from '@nestjs/passport';
import { RouteMetadataCache } from '../../common/throttling/route-metadata.cache';
import { IS_PUBLIC_KEY } from '../decorators/public.decorator';
import { OptionalAccessGuard } from './optional-access.guard';
import { RolesGuard } from './roles.guard';
import { SecondFactorGuard } from './second-factor.guard';
import { AccessTokenGuard, LogoutGuard, RefreshTokenGuard } from './token.guard';

/** Where the decorators of authenticated.decorator.ts say which token a route takes. */
export const ROUTE_TOKEN = 'auth:route-token';
export type RouteToken = 'access' | 'refresh' | 'access-or-refresh' | 'optional-access';

/**
 * The one guard every route passes (APP_GUARD, after the rate limit): a route is for signed-in
 * users unless it says `@Public()`. A route that names the token it takes gets the passport guard
 * of that strategy alone (`@OptionalAccess()`, public, reads the access token if one came); any
 * other takes the access token, then the route's roles and the second-factor rules.
 */
@Injectable()
export class AuthenticationGuard implements CanActivate {
  /** Two questions per request of decorators that never change once the app runs: kept. */
  private readonly reflector: Reflector;
  private readonly byToken: Record<RouteToken, CanActivate>;

  constructor(
    reflector: Reflector,
    @Inject(AccessTokenGuard) private readonly access: IAuthGuard,
    @Inject(RefreshTokenGuard) refresh: IAuthGuard,
    @Inject(LogoutGuard) accessOrRefresh: IAuthGuard,
    optional: OptionalAccessGuard,
    private readonly roles: RolesGuard,
    private readonly secondFactor: SecondFactorGuard,
  ) {
    this.reflector = new RouteMetadataCache(reflector);
    this.byToken = {
      access,
      refresh,
      'access-or-refresh': accessOrRefresh,
      'optional-access': optional,
    };
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const targets = [context.getHandler(), context.getClass()];
    const token = this.reflector.getAllAndOverride<RouteToken | undefined>(ROUTE_TOKEN, targets);
    if (token !== undefined) return (await this.byToken[token].canActivate(context)) as boolean;
    if (this.reflector.getAllAndOverride<boolean | undefined>(IS_PUBLIC_KEY, targets) === true) {
      return true;
    }
    // The passport guards throw rather than answer false; the order is `@Authenticated()`'s.
    if (!((await this.access.canActivate(context)) as boolean)) return false;
    return this.roles.canActivate(context) && this.secondFactor.canActivate(context);
  }
}
