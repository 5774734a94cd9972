import {
  ExecutionContext,
  SetMetadata,
  UseGuards,
  applyDecorators,
  createParamDecorator,
} from '@nestjs/common';
import { ApiParam } from '@nestjs/swagger';
import { Authenticated } from '../auth/decorators/authenticated.decorator';
import { ApiErrors, STORED } from '../openapi/api-responses.decorator';
import { OrgRoleName } from './org-roles';
import { ORG_ROLE_KEY, OrgRequest, OrgRoleGuard } from './org-role.guard';

/**
 * A route of the organization its `:orgId` param names, for its members of `role` or a stronger
 * one (`owner` > `admin` > `member`), read as stored on every request: a removal or a demotion
 * applies at once. A non-member gets 404 ORGANIZATION_NOT_FOUND, a weaker role 403 FORBIDDEN.
 * The module whose controller uses it imports OrganizationsModule (the guard reads the
 * memberships through it). `@OrgMembership()` gives the handler the caller's membership.
 */
export function OrgRole(role: OrgRoleName = 'member'): MethodDecorator & ClassDecorator {
  return applyDecorators(
    Authenticated(),
    SetMetadata(ORG_ROLE_KEY, role),
    UseGuards(OrgRoleGuard),
    ApiParam({ name: 'orgId', description: 'The organization id (`org_` and digits).' }),
    ApiErrors(
      'ORGANIZATION_NOT_FOUND',
      ...(role === 'member' ? [] : (['FORBIDDEN'] as const)),
      ...STORED,
    ),
  );
}

/** The caller's membership of the route's organization, as `@OrgRole()` read it. */
export const OrgMembership = createParamDecorator(
  (_data: unknown, context: ExecutionContext) =>
    context.switchToHttp().getRequest<OrgRequest>().membership,
);
