import { Controller, Get, Param, Query, Redirect, Req, Res } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiQuery, ApiTags } from '@nestjs/swagger';
import { AppNavigation } from '../auth/decorators/app-navigation.decorator';
import { AccessTokenOnly } from '../auth/decorators/authenticated.decorator';
import { AppException } from '../common/errors/app.exception';
import { HttpRequest, HttpResponse } from '../common/http/http-request';
import { RequestUser } from '../common/http/request-user.decorator';
import { FederationConfig } from '../config/config.sections';
import { requiredProviderFor } from '../config/sso-domains';
import { LinkedIdentitiesService } from '../linked-identities/linked-identities.service';
import { ApiErrors, STORED } from '../openapi/api-responses.decorator';
import { User } from '../users/user.entity';
import { ProviderSignIn } from './provider-sign-in.service';
import {
  PROVIDER_ID,
  REDIRECT_TO,
  RedirectAnswer,
  requiredRedirect,
} from './identity-providers.controller';
import { FlowCookie } from './flow-cookie';
import { ProviderClients } from './provider-clients.service';
import { ApiProviderRedirect } from './provider-redirects.decorator';

/**
 * A step-up through a linked identity provider: the third way (beside the password or a code, a
 * passkey and a mailed code at `POST /auth/reauthenticate`) for an account that has no password.
 * A browser navigation, as a sign-in's start is; the provider comes back to the usual callback,
 * which renews this session.
 */
@ApiTags('auth')
@Controller('auth/reauthenticate')
export class ProviderStepUpController {
  constructor(
    private readonly signIn: ProviderSignIn,
    private readonly flowCookie: FlowCookie,
    private readonly providers: ProviderClients,
    private readonly identities: LinkedIdentitiesService,
    private readonly federation: FederationConfig,
  ) {}

  @Get('providers/:id/start')
  @Redirect()
  @AppNavigation()
  @ApiOperation({
    operationId: 'startProviderReauthentication',
    summary: 'Step up with a fresh sign-in at a linked identity provider (a browser navigation)',
    description:
      '302 to the provider, asked for a new sign-in (OpenID Connect `prompt=login`, ' +
      '`max_age=0`; GitHub cannot be asked), bound to this browser and this session. The ' +
      'provider comes back to `/auth/providers/:id/callback`, which ends at `redirect_to`: with ' +
      'this session\'s cookies renewed (same `sid`, `auth_time` now, `amr: ["fed"]`) when the ' +
      'identity that signed in is the one linked to this account and its ID token says a ' +
      'sign-in made after the start (`auth_time`, when the provider gives one); else with ' +
      '`?error=IDENTITY_NOT_FOUND` (another identity of the provider) or `?error=PROVIDER_ERROR` ' +
      '(anything else, a session ended meanwhile included), and nothing changed. Signed in by ' +
      "the access-token cookie, and started from the app, as a link's start is: a navigation " +
      'another site made (`Sec-Fetch-Site: cross-site`), one typed or opened from outside the ' +
      'browser (`none`) or a request with an `Origin` outside APP_ORIGINS is 403 ' +
      'FORBIDDEN_ORIGIN. 404 IDENTITY_NOT_FOUND ' +
      'when no identity of this provider is linked to the account; 403 SSO_REQUIRED for an ' +
      'address whose domain must sign in through another provider (its own).',
  })
  @ApiParam(PROVIDER_ID)
  @ApiQuery(REDIRECT_TO)
  @AccessTokenOnly()
  @ApiProviderRedirect()
  @ApiErrors(
    'INVALID_TOKEN',
    'FORBIDDEN_ORIGIN',
    'PROVIDER_NOT_FOUND',
    'IDENTITY_NOT_FOUND',
    'SSO_REQUIRED',
    'PROVIDER_ERROR',
    'VALIDATION_ERROR',
    ...STORED,
  )
  async start(
    @Param('id') id: string,
    @Query('redirect_to') redirectTo: unknown,
    @RequestUser() user: User,
    @Req() request: HttpRequest,
    @Res({ passthrough: true }) response: HttpResponse,
  ): Promise<RedirectAnswer> {
    this.providers.get(id);
    const required = requiredProviderFor(this.federation.providers, user.email);
    if (required && required.id !== id) throw new AppException('SSO_REQUIRED');
    const linked = await this.identities.list(user.id);
    if (!linked.some((identity) => identity.provider === id)) {
      throw new AppException('IDENTITY_NOT_FOUND');
    }
    const target = requiredRedirect(redirectTo);
    const browser = this.flowCookie.issue(request, response);
    const url = await this.signIn.start(id, target, browser, {
      purpose: 'reauth',
      user,
      session: { id: request.sessionId! },
    });
    return { url, statusCode: 302 };
  }
}
