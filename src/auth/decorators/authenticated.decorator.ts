import { SetMetadata, UseGuards, applyDecorators } from '@nestjs/common';
import { ApiErrors } from '../../openapi/api-responses.decorator';
import { ApiAccessToken } from '../../openapi/security-schemes';
import { Role } from '../../users/user.entity';
import { AccessTokenGuard } from '../guards/token.guard';
import { BEFORE_ENROLMENT, SecondFactorGuard } from '../guards/second-factor.guard';
import { ROLES_KEY, RolesGuard } from '../guards/roles.guard';

/**
 * A route for signed-in users only (access token by bearer or cookie, revocation checked), and
 * with roles given, only for those roles: `@Authenticated()`, `@Authenticated('admin')`. A user
 * whose role MFA_REQUIRED_ROLES names must have a second factor first (403
 * MFA_ENROLMENT_REQUIRED) and a token that shows it (403 SECOND_FACTOR_REQUIRED; see
 * SecondFactorGuard). The handler gets the user with
 * `@RequestUser()`.
 */
export function Authenticated(...roles: Role[]): MethodDecorator & ClassDecorator {
  return applyDecorators(
    signedIn(roles),
    ApiErrors(
      'INVALID_TOKEN',
      'MFA_ENROLMENT_REQUIRED',
      'SECOND_FACTOR_REQUIRED',
      ...(roles.length > 0 ? (['FORBIDDEN'] as const) : []),
    ),
  );
}

/**
 * `@Authenticated()` for the routes a user who must enrol a second factor still needs to get
 * there: their profile and the enrolment itself.
 */
export function AuthenticatedBeforeEnrolment(): MethodDecorator & ClassDecorator {
  return applyDecorators(
    signedIn([]),
    SetMetadata(BEFORE_ENROLMENT, true),
    ApiErrors('INVALID_TOKEN'),
  );
}

function signedIn(roles: Role[]) {
  return applyDecorators(
    SetMetadata(ROLES_KEY, roles),
    UseGuards(AccessTokenGuard, RolesGuard, SecondFactorGuard),
    // Documented with it: the token it takes.
    ApiAccessToken(),
  );
}
