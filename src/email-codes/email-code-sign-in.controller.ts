import { Body, Controller, Get, HttpCode, Post, Res } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { SwitchedBy } from '../common/feature-switch/switched-by.decorator';
import { Envelope, ok } from '../common/http/envelope';
import { HttpResponse } from '../common/http/http-request';
import { Client, ClientInfo } from '../common/http/request-context';
import { StrictThrottle } from '../common/throttling/strict-throttle.decorator';
import { AppConfig, EmailCodeConfig } from '../config/config.sections';
import {
  ApiEnvelope,
  ApiErrors,
  ApiTokenDelivery,
  JSON_BODY,
  STORED,
} from '../openapi/api-responses.decorator';
import { EmailCodeRequestedDataModel } from '../openapi/api-models';
import { Public } from '../auth/decorators/public.decorator';
import { EmailLinkRequestDto } from '../auth/dto/email-link-request.dto';
import { MailRequest } from '../auth/mail-request';
import { LinkPage, renderLinkPage } from '../auth/link-page';
import { SessionDelivery } from '../auth/session-delivery.service';
import { TokenDelivery, TokenDeliveryMode } from '../auth/token-delivery.decorator';
import { EmailCodeVerifyDto, shapeOf } from './dto/email-code.dto';
import { EmailCodeMails } from './email-code-mails.service';
import { EmailCodeSignIn } from './email-code-sign-in.service';
import { EmailCodeSwitch } from './email-code-switch.guard';

/** Queued: said alike whether or not the address has an account (ACCOUNT_ENUMERATION_PROTECTION). */
const CODE_REQUESTED: Record<MailRequest, string> = {
  sent: 'Sign-in code sent',
  queued: 'If an account uses this address, a sign-in code is on its way',
};

/**
 * Signing in with a one-time code by email (EMAIL_CODE_LOGIN; off, every route here is 404).
 * Both POSTs take the strict rate limit of login: one asks for mail, the other takes guesses.
 */
@ApiTags('auth')
@Public()
@Controller('auth')
@SwitchedBy(EmailCodeSwitch)
export class EmailCodeSignInController {
  constructor(
    private readonly signIn: EmailCodeSignIn,
    private readonly mails: EmailCodeMails,
    private readonly sessions: SessionDelivery,
    private readonly app: AppConfig,
    private readonly codeConfig: EmailCodeConfig,
    private readonly adapterHost: HttpAdapterHost,
  ) {}

  @Post('email-code')
  @HttpCode(200)
  @StrictThrottle()
  @ApiOperation({
    operationId: 'requestEmailCode',
    summary: 'Mail a six-digit sign-in code and a link that signs in',
    description:
      "Mails the account's address a code and a link (`applicationUrl?token=…`, or the " +
      "service's own page without `applicationUrl`), both good once, for EMAIL_CODE_TTL " +
      'seconds (10 minutes by default; `data.expires_in` says it); using either uses both, and a new mail retires the ' +
      'codes sent before it. 404 USER_NOT_FOUND for an address no account uses, as ' +
      'forgot-password answers. An address gets at most MAIL_RECIPIENT_LIMIT of these mails in ' +
      'any MAIL_RECIPIENT_WINDOW seconds: past it 429 RATE_LIMITED with Retry-After, and ' +
      'nothing is mailed. With ACCOUNT_ENUMERATION_PROTECTION=true every address gets the same ' +
      '200 (never 404 or 503), the mail goes out after the answer if an account uses the ' +
      'address, and the cap counts every address typed. An address whose email domain has ' +
      '`sso_required` is 403 SSO_REQUIRED, for any address of it (the rule is public ' +
      'configuration). Shares the strict rate limit of login. ' +
      '404 NOT_FOUND, as an unknown route, with EMAIL_CODE_LOGIN=false.',
  })
  @ApiEnvelope(200, 'Sign-in code sent', { data: EmailCodeRequestedDataModel })
  @ApiErrors(
    'USER_NOT_FOUND',
    'EMAIL_SERVICE_ERROR',
    'SSO_REQUIRED',
    'NOT_FOUND',
    ...JSON_BODY,
    ...STORED,
  )
  async request(
    @Body() body: EmailLinkRequestDto,
    @Client() client: ClientInfo,
  ): Promise<Envelope<EmailCodeRequestedDataModel>> {
    const request = await this.mails.request(body.email, body.applicationUrl, client);
    // The same for every address (a constant): it tells nothing of whether an account uses it.
    return ok(CODE_REQUESTED[request], { expires_in: this.codeConfig.ttl });
  }

  @Post('email-code/verify')
  @HttpCode(200)
  @StrictThrottle()
  @ApiOperation({
    operationId: 'verifyEmailCode',
    summary: 'Sign in with the mailed code (`{email, code}`) or its link (`{token}`)',
    description:
      'Answers exactly as login does: cookies, or the body tokens with `X-Token-Delivery: ' +
      'body`; for a user with a second factor, `data.mfa_required` and a `challenge` for ' +
      '`POST /auth/mfa/verify`. The access tokens say `amr: ["otp"]` (RFC 8176 has no name ' +
      'for a mailed code; `otp` is the closest), or `["otp", "mfa"]` and `["otp", "hwk", ' +
      '"mfa"]` once a second factor completes it; `["otp"]` alone is a mailed code, never the ' +
      "authenticator app's (a step-up with it names the session's first step too). The code " +
      'proves the mailbox: an unverified email becomes verified, and when that ' +
      "is its first proof the account's other sessions end, a pending email change dies, " +
      'its password is removed (`has_password: false`; set one through the reset mail) and ' +
      'the identities linked ' +
      'before are unlinked. An address (or, for a link, an account) whose email domain has ' +
      '`sso_required` is 403 SSO_REQUIRED. A wrong, used or expired code ' +
      'or link is 401 LOGIN_FAILED; a ' +
      "wrong code counts towards the account's login slow-down (429 RATE_LIMITED with " +
      'Retry-After while it waits) and, after EMAIL_CODE_ATTEMPTS wrong ones, the code and its ' +
      'link are dead. A disabled account is 403 ACCOUNT_DISABLED, as login answers it. Shares ' +
      'the strict rate limit of login. 404 NOT_FOUND, as an unknown route, with ' +
      'EMAIL_CODE_LOGIN=false.',
  })
  @ApiTokenDelivery('Login successful', true)
  @ApiErrors(
    'LOGIN_FAILED',
    'ACCOUNT_DISABLED',
    'SSO_REQUIRED',
    'NOT_FOUND',
    ...JSON_BODY,
    ...STORED,
  )
  async verify(
    @Body() body: EmailCodeVerifyDto,
    @TokenDelivery() delivery: TokenDeliveryMode,
    @Res({ passthrough: true }) res: HttpResponse,
    @Client() client: ClientInfo,
  ) {
    const result = await this.signIn.verify(shapeOf(body), client);
    if ('mfa_required' in result) return ok('Second factor required', result);
    return this.sessions.deliver(res, result, delivery, 'Login successful');
  }

  @Get('email-code/verify')
  @LinkPage(
    'The page an emailed sign-in link opens (no applicationUrl given)',
    'Opening it changes nothing, so mail scanners that follow links cannot use the token up: ' +
      "the page's button posts the token to POST /auth/email-code/verify, which signs this " +
      "browser in to the service's own origin. 404 NOT_FOUND with EMAIL_CODE_LOGIN=false.",
  )
  @ApiErrors('NOT_FOUND')
  page(@Res({ passthrough: true }) res: HttpResponse): Promise<string> {
    return renderLinkPage(this.adapterHost, res, 'email-code', {
      title: 'Sign in',
      appName: this.app.appName,
    });
  }
}
