import { SetMetadata, UseGuards, applyDecorators } from '@nestjs/common';
import { ApiErrors } from '../../openapi/api-responses.decorator';
import { ApiAccessToken } from '../../openapi/security-schemes';
import { Role } from '../../users/user.entity';
import { AccessTokenGuard } from '../guards/token.guard';
import { SecondFactorGuard } from '../guards/second-factor.guard';
import { ROLES_KEY, RolesGuard } from '../guards/roles.guard';

/**
 * A route for signed-in users only (access token by bearer or cookie, revocation checked), and
 * with roles given, only for those roles: `@Authenticated()`, `@Authenticated('admin')`. A user
 * whose role MFA_REQUIRED_ROLES names must have a second factor (see SecondFactorGuard). The
 * handler gets the user with `@RequestUser()`.
 */
export function Authenticated(...roles: Role[]): MethodDecorator & ClassDecorator {
  return applyDecorators(
    SetMetadata(ROLES_KEY, roles),
    UseGuards(AccessTokenGuard, RolesGuard, SecondFactorGuard),
    // Documented with it: the token it takes and the errors it adds.
    ApiAccessToken(),
    ApiErrors(
      'INVALID_TOKEN',
      'MFA_ENROLMENT_REQUIRED',
      ...(roles.length > 0 ? (['FORBIDDEN'] as const) : []),
    ),
  );
}
