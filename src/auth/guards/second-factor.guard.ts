import {
  CanActivate,
  ExecutionContext,
  Injectable,
  SetMetadata,
  applyDecorators,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AppException } from '../../common/errors/app.exception';
import { HttpRequest } from '../../common/http/http-request';
import { RouteMetadataCache } from '../../common/throttling/route-metadata.cache';
import { ApiErrors } from '../../openapi/api-responses.decorator';
import { User } from '../../users/user.entity';
import { SecondFactorPolicy, showsSecondFactor } from '../second-factor-policy';

const RECENT = 'auth:recent-authentication';
/** Set by `@AuthenticatedBeforeEnrolment()`. */
export const BEFORE_ENROLMENT = 'auth:before-mfa-enrolment';

/**
 * A route (or controller) that needs a recent sign-in (step-up): the access token's session was
 * authenticated (signed in, or `POST /auth/reauthenticate`) within STEP_UP_MAX_AGE, else 403
 * REAUTHENTICATION_REQUIRED. A token without `auth_time` (issued before it existed) is not
 * recent. Checked by the global guard after the token, on the routes of `@Authenticated()`
 * and its before-enrolment form.
 */
export const RecentlyAuthenticated = () =>
  applyDecorators(SetMetadata(RECENT, true), ApiErrors('REAUTHENTICATION_REQUIRED'));

/**
 * Run by AuthenticationGuard after the access token and the roles: a user whose role
 * MFA_REQUIRED_ROLES names gets, from every route but those of `@AuthenticatedBeforeEnrolment()`
 * (and those that take another token: logout, the step-up, verify-token), 403
 * MFA_ENROLMENT_REQUIRED while they have no second factor, and 403 SECOND_FACTOR_REQUIRED once
 * they have one but the access token's `amr` shows none (`showsSecondFactor`: a token from
 * before the enrolment, or renewed by a step-up with the password alone); `POST
 * /auth/reauthenticate` with a code or a passkey gives one that does. A route marked
 * `@RecentlyAuthenticated()` needs a recent sign-in.
 */
@Injectable()
export class SecondFactorGuard implements CanActivate {
  /** Every authenticated request asks two questions of its route's decorators: kept per route. */
  private readonly reflector: Reflector;

  constructor(
    private readonly policy: SecondFactorPolicy,
    reflector: Reflector,
  ) {
    this.reflector = new RouteMetadataCache(reflector);
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<HttpRequest>();
    const marked = (key: string) =>
      this.reflector.getAllAndOverride<boolean | undefined>(key, [
        context.getHandler(),
        context.getClass(),
      ]) === true;
    if (req.user instanceof User && !marked(BEFORE_ENROLMENT)) {
      if (await this.policy.mustEnrol(req.user)) {
        throw new AppException('MFA_ENROLMENT_REQUIRED');
      }
      // Judged by how this token was obtained, not by the account: a token from before the
      // enrolment (or one a password alone renewed) shows no second factor.
      if (this.policy.requiresSecondFactor(req.user) && !showsSecondFactor(req.amr)) {
        throw new AppException('SECOND_FACTOR_REQUIRED');
      }
    }
    if (marked(RECENT) && !this.policy.isRecent(req.authTime)) {
      throw new AppException('REAUTHENTICATION_REQUIRED');
    }
    return true;
  }
}
