import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AppException } from '../common/errors/app.exception';
import { HttpRequest } from '../common/http/http-request';
import { User } from '../users/user.entity';
import { Memberships } from './memberships.service';
import { OrgRoleName, atLeast } from './org-roles';
import { OrganizationMember } from './organization-member.entity';

/** Where `@OrgRole()` keeps the weakest role a route admits. */
export const ORG_ROLE_KEY = 'organizations:role';

/** The request once OrgRoleGuard has let it through: the caller's membership, as stored. */
export interface OrgRequest extends HttpRequest {
  membership?: OrganizationMember;
  params?: Record<string, string | undefined>;
}

/**
 * After the global guard (the user is signed in): the caller's membership of the organization the
 * route's `:orgId` names, read as stored on every request. No membership (or no such
 * organization): 404 ORGANIZATION_NOT_FOUND, so a non-member learns nothing of what exists. A
 * weaker role than the route's: 403 FORBIDDEN.
 */
@Injectable()
export class OrgRoleGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly memberships: Memberships,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const needed =
      this.reflector.getAllAndOverride<OrgRoleName | undefined>(ORG_ROLE_KEY, [
        context.getHandler(),
        context.getClass(),
      ]) ?? 'member';
    const req = context.switchToHttp().getRequest<OrgRequest>();
    const orgId = req.params?.orgId;
    if (!(req.user instanceof User) || typeof orgId !== 'string') {
      throw new AppException('ORGANIZATION_NOT_FOUND');
    }
    const membership = await this.memberships.find(orgId, req.user.id);
    if (!membership) throw new AppException('ORGANIZATION_NOT_FOUND');
    if (!atLeast(membership.role, needed)) throw new AppException('FORBIDDEN');
    req.membership = membership;
    return true;
  }
}
