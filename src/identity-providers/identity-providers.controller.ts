import {
  Body,
  Controller,
  Get,
  HttpCode,
  Param,
  Post,
  Query,
  Redirect,
  Req,
  Res,
} from '@nestjs/common';
import { ApiOperation, ApiParam, ApiQuery, ApiTags } from '@nestjs/swagger';
import { ApplicationUrlPolicy } from '../auth/application-url.policy';
import { AuthCookies } from '../auth/auth-cookies.service';
import { PresentedRefresh } from '../auth/presented-refresh.service';
import { AppException } from '../common/errors/app.exception';
import { Envelope, ok } from '../common/http/envelope';
import { HttpRequest, HttpResponse } from '../common/http/http-request';
import { Client, ClientInfo } from '../common/http/request-context';
import { AppConfig, FederationConfig } from '../config/config.sections';
import {
  ANY_ROUTE,
  ApiEnvelope,
  ApiErrors,
  JSON_BODY,
  STORED,
} from '../openapi/api-responses.decorator';
import { Public } from '../auth/decorators/public.decorator';
import { callbackRedirect } from './callback-redirect';
import { SsoStartDto } from './dto/identity-provider-bodies.dto';
import { ProviderSignIn } from './provider-sign-in.service';
import { ProvidersDataModel, SsoStartDataModel } from './identity-providers.view';
import { MAX_REDIRECT_LENGTH } from './provider-flow-states.service';
import { FlowCookie } from './flow-cookie';
import { ApiProviderCallback, ApiProviderRedirect } from './provider-redirects.decorator';
import { providerForEmail } from '../config/sso-domains';

export const PROVIDER_ID = { name: 'id', description: 'A provider id from `GET /auth/providers`.' };
export const REDIRECT_TO = {
  name: 'redirect_to',
  type: String,
  required: true,
  description: 'The app page to come back to; its origin must be in APP_ORIGINS.',
};

/** A redirect answer of Nest's `@Redirect()`. */
export interface RedirectAnswer {
  url: string;
  statusCode: 302;
}

/**
 * Signing in with an identity provider: the providers, the round trip's two ends, and where an
 * email domain's single sign-on starts. The start and the callback are browser navigations
 * (302s), not API calls.
 */
@ApiTags('auth')
@Controller('auth')
export class IdentityProvidersController {
  constructor(
    private readonly signIn: ProviderSignIn,
    private readonly flowCookie: FlowCookie,
    private readonly authCookies: AuthCookies,
    private readonly federation: FederationConfig,
    private readonly app: AppConfig,
    private readonly applicationUrls: ApplicationUrlPolicy,
    private readonly refresh: PresentedRefresh,
  ) {}

  @Get('providers')
  @ApiOperation({
    operationId: 'listIdentityProviders',
    summary: 'The identity providers one can sign in with',
    description: 'One entry per AUTH_PROVIDERS entry: a sign-in button each.',
  })
  @Public()
  @ApiEnvelope(200, 'Identity providers', { data: ProvidersDataModel })
  @ApiErrors(...ANY_ROUTE)
  providers(): Envelope<ProvidersDataModel> {
    const providers = this.federation.providers.map(({ id, name }) => ({ id, name }));
    return ok('Identity providers', { providers });
  }

  @Get('providers/:id/start')
  @Redirect()
  @ApiOperation({
    operationId: 'startProviderSignIn',
    summary: 'Sign in with an identity provider (a browser navigation)',
    description:
      '302 to the provider (authorization code with PKCE, `state` and `nonce`, the flow sealed ' +
      'in `state`, good for ten minutes and once, bound to this browser by an HttpOnly cookie; ' +
      'nothing stored). `redirect_to` is at most 2048 characters. The provider ' +
      'comes back to `/auth/providers/:id/callback`, which ends at `redirect_to`.',
  })
  @ApiParam(PROVIDER_ID)
  @ApiQuery(REDIRECT_TO)
  @Public()
  @ApiProviderRedirect()
  @ApiErrors('PROVIDER_NOT_FOUND', 'PROVIDER_ERROR', 'VALIDATION_ERROR', ...STORED)
  async start(
    @Param('id') id: string,
    @Query('redirect_to') redirectTo: unknown,
    @Req() request: HttpRequest,
    @Res({ passthrough: true }) response: HttpResponse,
  ): Promise<RedirectAnswer> {
    const browser = this.flowCookie.issue(request, response);
    const url = await this.signIn.start(id, requiredRedirect(redirectTo), browser, null);
    return { url, statusCode: 302 };
  }

  @Get('providers/:id/callback')
  @Redirect()
  @ApiOperation({
    operationId: 'finishProviderSignIn',
    summary: "The provider's redirect back (not for clients to call)",
    description:
      '302 to the flow\'s `redirect_to`: with the session cookies (`amr: ["fed"]`) after a ' +
      'sign-in or a step-up (the same session renewed; `?error=IDENTITY_NOT_FOUND` when ' +
      'another identity than the linked one came back); unchanged after linking; with `?error=ACCOUNT_EXISTS` (the email belongs to an ' +
      'account this identity is not linked to) or `?error=PROVIDER_ERROR` (anything else, a ' +
      'disabled account included) and no cookies after a refusal; with ' +
      '`#mfa_required=true&challenge=…&methods=…` when the account has a second factor (answer ' +
      'it at `POST /auth/mfa/verify`). A state that opens no flow of this browser and names no ' +
      'app is 400 PROVIDER_ERROR.',
  })
  @ApiParam(PROVIDER_ID)
  @Public()
  @ApiProviderCallback()
  @ApiErrors('PROVIDER_ERROR', ...STORED)
  async callback(
    @Param('id') id: string,
    @Req() request: HttpRequest,
    @Res({ passthrough: true }) response: HttpResponse,
    @Client() client: ClientInfo,
  ): Promise<RedirectAnswer> {
    const query = new URL(request.url, 'http://callback').searchParams;
    const outcome = await this.signIn.finish(
      id,
      query,
      this.flowCookie.read(request),
      client,
      // A step-up rotates the session's refresh cookie, which comes along to /api/v1/auth.
      this.refresh.of(request),
    );
    if (outcome.kind === 'session' || outcome.kind === 'reauthenticated') {
      this.authCookies.set(response, outcome.session.tokens);
    }
    return { url: callbackRedirect(outcome), statusCode: 302 };
  }

  @Post('sso/start')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'startSingleSignOn',
    summary: "Where an email domain's single sign-on starts",
    description:
      "For an address whose domain a provider's `domains` lists: that provider and the URL to " +
      'send the browser to. 404 SSO_NOT_CONFIGURED otherwise (sign in another way).',
  })
  @Public()
  @ApiEnvelope(200, 'Continue with your organisation', { data: SsoStartDataModel })
  @ApiErrors('SSO_NOT_CONFIGURED', ...JSON_BODY, ...STORED)
  sso(@Body() body: SsoStartDto): Envelope<SsoStartDataModel> {
    const provider = providerForEmail(this.federation.providers, body.email);
    const redirectTo = this.applicationUrls.check(body.redirect_to, 'redirect_to')!;
    if (!provider) throw new AppException('SSO_NOT_CONFIGURED');
    const url = new URL(`${this.app.publicUrl}/api/v1/auth/providers/${provider.id}/start`);
    url.searchParams.set('redirect_to', redirectTo);
    return ok('Continue with your organisation', { provider: provider.id, url: url.toString() });
  }
}

/** 400 VALIDATION_ERROR for a missing, repeated or over-long `redirect_to`. */
export function requiredRedirect(value: unknown): string {
  if (typeof value === 'string' && value !== '' && value.length <= MAX_REDIRECT_LENGTH) {
    return value;
  }
  throw new AppException('VALIDATION_ERROR', {
    details: [{ field: 'redirect_to', message: 'redirect_to must be an app URL' }],
  });
}
