import { Body, Controller, HttpCode, Post, Req, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { HttpRequest, HttpResponse } from '../common/http/http-request';
import { Client, ClientInfo } from '../common/http/request-context';
import { RequestUser } from '../common/http/request-user.decorator';
import { exactlyOne } from '../common/validation/exactly-one';
import { ApiErrors, ApiTokenDelivery, JSON_BODY, STORED } from '../openapi/api-responses.decorator';
import { User } from '../users/user.entity';
import { ReauthenticateDto } from './dto/reauthenticate.dto';
import { AccessTokenOnly } from './decorators/authenticated.decorator';
import { PresentedRefresh } from './presented-refresh.service';
import { Reauthentication, SteppingUp } from './reauthentication.service';
import { SessionDelivery } from './session-delivery.service';
import { TokenDelivery, TokenDeliveryMode } from './token-delivery.decorator';

/**
 * A fresh authentication of a session already signed in (step-up), with any proof the account
 * has: the password, the authenticator app, a passkey, a mailed code (this route; a passkey's
 * options and the code's mail are their modules'), or a fresh sign-in at a linked identity provider
 * (`GET /auth/reauthenticate/providers/:id/start`, in IdentityProvidersModule). Only the access token is needed: a user whose role must enrol a second
 * factor, or show it, steps up here too.
 */
@ApiTags('auth')
@Controller('auth/reauthenticate')
@AccessTokenOnly()
export class ReauthenticationController {
  constructor(
    private readonly reauthentication: Reauthentication,
    private readonly sessions: SessionDelivery,
    private readonly refresh: PresentedRefresh,
  ) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({
    operationId: 'reauthenticate',
    summary: 'Authenticate the signed-in session again (step-up), with any proof the account has',
    description:
      'Takes exactly one of `{password}`, `{code}` (the authenticator app), `{passkey}` (the ' +
      'answer to `POST /auth/reauthenticate/passkey/options`) or `{email_code}` (the six ' +
      'digits `POST /auth/reauthenticate/email-code` mailed); `GET /users/me` lists the ones ' +
      'the account has (`reauthentication_methods`). Answers new tokens for the same session ' +
      '(same `sid`), with `auth_time` now, delivered as login does (cookies, or the body ' +
      'tokens with `X-Token-Delivery: body`). `amr`: `["pwd"]` for the password; for the ' +
      'app\'s code, the session\'s first step and `otp` (`["pwd", "otp"]`, `["fed", "otp"]`, ' +
      '`["otp", "mfa"]`…), as a login\'s second step says it; `["hwk"]` or `["swk"]` for a ' +
      'passkey; `["otp"]` for a mailed code. Routes that need a recent sign-in ' +
      '(STEP_UP_MAX_AGE) answer 403 REAUTHENTICATION_REQUIRED until then. A wrong password is ' +
      '403 INVALID_PASSWORD (also for an account without one), a wrong code of the app or the ' +
      'mail 401 INVALID_MFA_CODE, a refused passkey 401 INVALID_PASSKEY; wrong passwords and ' +
      "codes count towards the account's login slow-down. A mailed code of an address whose " +
      'domain must sign in through its provider is 403 SSO_REQUIRED.',
  })
  @ApiTokenDelivery('Authenticated again')
  @ApiErrors(
    'INVALID_TOKEN',
    'INVALID_PASSWORD',
    'INVALID_MFA_CODE',
    'INVALID_PASSKEY',
    'SSO_REQUIRED',
    'RATE_LIMITED',
    'FORBIDDEN_ORIGIN',
    ...JSON_BODY,
    ...STORED,
  )
  async reauthenticate(
    @RequestUser() user: User,
    @Body() body: ReauthenticateDto,
    @Req() req: HttpRequest,
    @TokenDelivery() delivery: TokenDeliveryMode,
    @Res({ passthrough: true }) res: HttpResponse,
    @Client() client: ClientInfo,
  ) {
    exactlyOne(body, ['password', 'code', 'passkey', 'email_code']);
    const session = await this.reauthentication.reauthenticate(
      user,
      this.steppingUp(req),
      // The proof goes to the way in that registered its field.
      { ...body },
      client,
    );
    return this.sessions.deliver(res, session, delivery, 'Authenticated again');
  }

  private steppingUp(req: HttpRequest): SteppingUp {
    return { id: req.sessionId!, amr: req.amr, presented: this.refresh.of(req) };
  }
}
