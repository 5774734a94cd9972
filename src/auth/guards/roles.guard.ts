import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { HttpRequest } from '../../common/http/http-request';
import { AppException } from '../../common/errors/app.exception';
import { Role, User } from '../../users/user.entity';

/** Where `@Authenticated(...roles)` keeps the roles a route allows. */
export const ROLES_KEY = 'auth:roles';

/**
 * After the access-token guard: the signed-in user's role must be one the route names. The role
 * is the user's as stored (read with the token's revocation check), not the one the token was
 * issued with, so a role taken away applies at once.
 */
@Injectable()
export class RolesGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    const roles = this.reflector.getAllAndOverride<Role[] | undefined>(ROLES_KEY, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (!roles || roles.length === 0) return true;
    const user = context.switchToHttp().getRequest<HttpRequest>().user;
    if (user instanceof User && (roles as string[]).includes(user.role)) return true;
    throw new AppException('FORBIDDEN');
  }
}
