import { SetMetadata, applyDecorators } from '@nestjs/common';
import { ApiErrors } from '../../openapi/api-responses.decorator';
import { ApiAccessToken, ApiRefreshCookie } from '../../openapi/security-schemes';
import { Role } from '../../users/user.entity';
import { ROUTE_TOKEN, RouteToken } from '../guards/authentication.guard';
import { BEFORE_ENROLMENT } from '../guards/second-factor.guard';
import { ROLES_KEY } from '../guards/roles.guard';
import { Public } from './public.decorator';

/**
 * The global AuthenticationGuard lets only signed-in users through a route that says nothing (or
 * `@Public()` for anyone): access token by bearer or cookie, revocation checked. These decorators
 * say more. `@Authenticated()` documents that token, and with roles given admits only those
 * roles: `@Authenticated('admin')`. A user whose role MFA_REQUIRED_ROLES names must have a second
 * factor first (403 MFA_ENROLMENT_REQUIRED) and a token that shows it (403
 * SECOND_FACTOR_REQUIRED; see SecondFactorGuard). The handler gets the user with
 * `@RequestUser()`.
 */
export function Authenticated(...roles: Role[]): MethodDecorator & ClassDecorator {
  return applyDecorators(
    SetMetadata(ROLES_KEY, roles),
    ApiAccessToken(),
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
    SetMetadata(ROLES_KEY, []),
    SetMetadata(BEFORE_ENROLMENT, true),
    ApiAccessToken(),
    ApiErrors('INVALID_TOKEN'),
  );
}

const takes = (token: RouteToken) => SetMetadata(ROUTE_TOKEN, token);

/**
 * The access token alone, without the second-factor rules: verify-token, and the step-up by
 * which a user who must show a second factor comes to show one.
 */
export const AccessTokenOnly = () => applyDecorators(takes('access'), ApiAccessToken());

/** The refresh_token cookie instead of the access token (its rotation). */
export const RefreshTokenOnly = () => applyDecorators(takes('refresh'), ApiRefreshCookie());

/**
 * The access token, or failing that the refresh cookie (logout: a user whose access token has
 * expired can still end their sessions instead of leaving a live refresh token behind).
 */
export const AccessOrRefreshToken = () =>
  applyDecorators(takes('access-or-refresh'), ApiRefreshCookie(), ApiAccessToken());

/**
 * `@Public()`, for a route that answers a signed-in user differently: the handler gets the user
 * when the access token is good and `null` otherwise.
 */
export const OptionalAccess = () => applyDecorators(takes('optional-access'), Public());
