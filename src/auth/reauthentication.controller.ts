import { Body, Controller, HttpCode, Post, Req, Res, UseGuards } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Envelope, ok } from '../common/http/envelope';
import { HttpRequest, HttpResponse } from '../common/http/http-request';
import { Client, ClientInfo } from '../common/http/request-context';
import { RequestUser } from '../common/http/request-user.decorator';
import { exactlyOne } from '../mfa/dto/mfa-fields';
import { EmailCodeRequestedDataModel } from '../openapi/api-models';
import {
  ANY_BODY,
  ApiEnvelope,
  ApiErrors,
  ApiTokenDelivery,
  JSON_BODY,
  STORED,
} from '../openapi/api-responses.decorator';
import { ApiAccessToken } from '../openapi/security-schemes';
import { User } from '../users/user.entity';
import { ReauthenticateDto } from './dto/reauthenticate.dto';
import { AccessTokenGuard } from './guards/token.guard';
import { PresentedRefresh } from './presented-refresh.service';
import { IdentityProof, Reauthentication, SteppingUp } from './reauthentication.service';
import { SessionDelivery } from './session-delivery.service';
import { TokenDelivery, TokenDeliveryMode } from './token-delivery.decorator';

/**
 * A fresh authentication of a session already signed in (step-up), with any proof the account
 * has: the password, the authenticator app, a passkey, a mailed code (these routes; a passkey's
 * options are the passkey module's), or a fresh sign-in at a linked identity provider
 * (`GET /auth/reauthenticate/providers/:id/start`, in FederationModule). Only the access token is needed: a user whose role must enrol a second
 * factor, or show it, steps up here too.
 */
@ApiTags('auth')
@Controller('auth/reauthenticate')
@UseGuards(AccessTokenGuard)
@ApiAccessToken()
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
      proofOf(body),
      client,
    );
    return this.sessions.deliver(res, session, delivery, 'Authenticated again');
  }

  @Post('email-code')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'requestReauthenticationCode',
    summary: "Mail a six-digit code to the account's address, for a step-up",
    description:
      'Mails the address stored on the signed-in account a code for `POST ' +
      '/auth/reauthenticate {email_code}`, good once for EMAIL_CODE_TTL seconds (`data.expires_in`). ' +
      'The mail has no link, and its code signs no one in (nor does a sign-in code confirm a ' +
      'step-up); a new mail retires the step-up codes sent before it. Works whatever ' +
      'EMAIL_CODE_LOGIN says: every account, passwordless ones included, has this proof. ' +
      "Counted with the sign-in codes in the address's MAIL_RECIPIENT_LIMIT (429 " +
      'RATE_LIMITED with Retry-After past it, nothing mailed); 503 EMAIL_SERVICE_ERROR when ' +
      'the mail could not be sent; 403 SSO_REQUIRED for an address whose domain must sign in ' +
      'through its provider (step up with it instead). Takes no body.',
  })
  @ApiEnvelope(200, 'Code sent', { data: EmailCodeRequestedDataModel })
  @ApiErrors(
    'INVALID_TOKEN',
    'SSO_REQUIRED',
    'EMAIL_SERVICE_ERROR',
    'FORBIDDEN_ORIGIN',
    ...ANY_BODY,
    ...STORED,
  )
  async emailCode(
    @RequestUser() user: User,
    @Client() client: ClientInfo,
  ): Promise<Envelope<EmailCodeRequestedDataModel>> {
    const expiresIn = await this.reauthentication.sendEmailCode(user, client);
    return ok('Code sent', { expires_in: expiresIn });
  }

  private steppingUp(req: HttpRequest): SteppingUp {
    return { id: req.sessionId!, amr: req.amr, presented: this.refresh.of(req) };
  }
}

function proofOf(body: ReauthenticateDto): IdentityProof {
  if (body.password !== undefined) return { password: body.password };
  if (body.code !== undefined) return { code: body.code };
  if (body.email_code !== undefined) return { emailCode: body.email_code };
  // A passkey's answer goes to the way in that registered its field.
  return { other: { ...body } };
}
