import {
  Controller,
  Delete,
  Get,
  HttpCode,
  Param,
  Query,
  Redirect,
  Req,
  Res,
} from '@nestjs/common';
import { ApiOperation, ApiParam, ApiQuery, ApiTags } from '@nestjs/swagger';
import { AppNavigation } from '../auth/decorators/app-navigation.decorator';
import { Authenticated } from '../auth/decorators/authenticated.decorator';
import { RecentlyAuthenticated } from '../auth/guards/second-factor.guard';
import { Envelope, ok } from '../common/http/envelope';
import { HttpRequest, HttpResponse } from '../common/http/http-request';
import { Client, ClientInfo } from '../common/http/request-context';
import { RequestUser } from '../common/http/request-user.decorator';
import {
  ANY_BODY,
  ANY_ROUTE,
  ApiEnvelope,
  ApiErrors,
  STORED,
} from '../openapi/api-responses.decorator';
import { User } from '../users/user.entity';
import { ProviderSignIn } from './provider-sign-in.service';
import {
  PROVIDER_ID,
  REDIRECT_TO,
  RedirectAnswer,
  requiredRedirect,
} from './identity-providers.controller';
import { IdentitiesDataModel, identityView } from '../linked-identities/identity.view';
import { FlowCookie } from './flow-cookie';
import { ApiProviderRedirect } from './provider-redirects.decorator';
import { IdentityLinks } from './identity-links.service';

/**
 * Here rather than in src/linked-identities, beside the table's service: linking is a provider's
 * round trip (ProviderSignIn, FlowCookie) and IdentityProvidersModule imports
 * LinkedIdentitiesModule, so the controller there would make the two modules import each other.
 *
 * The signed-in user's identities at providers. Linking and unlinking change the ways into the
 * account, so they take a recent sign-in (STEP_UP_MAX_AGE), as a passkey's registration and
 * removal do: a stolen session must not add its thief's identity or take the owner's away.
 */
@ApiTags('users')
@Controller('users/me/identities')
@Authenticated()
export class LinkedIdentitiesController {
  constructor(
    private readonly links: IdentityLinks,
    private readonly signIn: ProviderSignIn,
    private readonly flowCookie: FlowCookie,
  ) {}

  @Get()
  @ApiOperation({
    operationId: 'listIdentities',
    summary: 'Your linked identities',
    description: 'The identity providers you can sign in with, with the address each gave.',
  })
  @ApiEnvelope(200, 'Your identities', { data: IdentitiesDataModel })
  @ApiErrors(...ANY_ROUTE, ...STORED)
  async list(@RequestUser() user: User): Promise<Envelope<IdentitiesDataModel>> {
    const identities = await this.links.list(user.id);
    return ok('Your identities', { identities: identities.map(identityView) });
  }

  @Get(':id/start')
  @Redirect()
  @RecentlyAuthenticated()
  @AppNavigation()
  @ApiOperation({
    operationId: 'startIdentityLink',
    summary: 'Link an identity provider to your account (a browser navigation)',
    description:
      'The sign-in round trip, ending linked: 302 to the provider, back at `redirect_to` (with ' +
      '`?error=ACCOUNT_EXISTS` when that identity belongs to another account or the account ' +
      'already has one of this provider, `?error=PROVIDER_ERROR` otherwise, also when every ' +
      'session of the account was ended meanwhile, by a reset for one). Signed in by the ' +
      'access-token cookie, recently, and started from the app: a navigation another site ' +
      'made (`Sec-Fetch-Site: cross-site`), one typed or opened from outside the browser ' +
      '(`none`) or a request with an `Origin` outside APP_ORIGINS is 403 FORBIDDEN_ORIGIN. ' +
      'The account is mailed a notice once linked.',
  })
  @ApiParam(PROVIDER_ID)
  @ApiQuery(REDIRECT_TO)
  @ApiProviderRedirect()
  @ApiErrors('PROVIDER_NOT_FOUND', 'PROVIDER_ERROR', 'VALIDATION_ERROR', ...STORED)
  async start(
    @Param('id') id: string,
    @Query('redirect_to') redirectTo: unknown,
    @RequestUser() user: User,
    @Req() request: HttpRequest,
    @Res({ passthrough: true }) response: HttpResponse,
  ): Promise<RedirectAnswer> {
    const browser = this.flowCookie.issue(request, response);
    const url = await this.signIn.start(id, requiredRedirect(redirectTo), browser, {
      purpose: 'link',
      user,
    });
    return { url, statusCode: 302 };
  }

  @Delete(':provider')
  @HttpCode(200)
  @RecentlyAuthenticated()
  @ApiOperation({
    operationId: 'unlinkIdentity',
    summary: 'Unlink an identity provider from your account',
    description: 'Refused for the last way into the account (409 LAST_SIGN_IN_METHOD).',
  })
  @ApiParam({ name: 'provider', description: 'The provider id, as listed.' })
  @ApiEnvelope(200, 'Identity unlinked')
  @ApiErrors(
    'IDENTITY_NOT_FOUND',
    'LAST_SIGN_IN_METHOD',
    'FORBIDDEN_ORIGIN',
    ...ANY_BODY,
    ...STORED,
  )
  async unlink(
    @Param('provider') provider: string,
    @RequestUser() user: User,
    @Client() client: ClientInfo,
  ): Promise<Envelope> {
    await this.links.unlink(user.id, provider, client);
    return ok('Identity unlinked');
  }
}
