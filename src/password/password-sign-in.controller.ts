import { Body, Controller, HttpCode, Post, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Public } from '../auth/decorators/public.decorator';
import { SessionDelivery } from '../auth/session-delivery.service';
import { TokenDelivery, TokenDeliveryMode } from '../auth/token-delivery.decorator';
import { Envelope, ok } from '../common/http/envelope';
import { HttpResponse } from '../common/http/http-request';
import { Client, ClientInfo } from '../common/http/request-context';
import { StrictThrottle } from '../common/throttling/strict-throttle.decorator';
import { UserDataModel } from '../openapi/api-models';
import {
  ANY_BODY,
  ApiEnvelope,
  ApiErrors,
  ApiTokenDelivery,
  JSON_BODY,
  STORED,
} from '../openapi/api-responses.decorator';
import { BlockingHooks } from '../hooks/blocking-hooks';
import { cleanEmail } from '../users/identity.normalizer';
import { publicUser } from '../users/user.view';
import { LoginDto } from './dto/login.dto';
import { RegisterDto } from './dto/register.dto';
import { PasswordLogin } from './password-login.service';
import { Registration, RegistrationService } from './registration.service';

type UserEnvelope = Envelope<UserDataModel>;

const REGISTERED: Record<Registration['mail'], string> = {
  queued: 'Registration successful. A verification email is on its way: check your inbox.',
  capped:
    'Registration successful, but this address has had too many emails lately: request the ' +
    'verification email again later.',
};

/** The password's way in: an account made with one, and the sign-in with it. */
@ApiTags('auth')
@Controller('auth')
export class PasswordSignInController {
  constructor(
    private readonly sessions: SessionDelivery,
    private readonly registration: RegistrationService,
    private readonly passwordLogin: PasswordLogin,
    private readonly hooks: BlockingHooks,
  ) {}

  @Post('register')
  @StrictThrottle()
  @ApiOperation({
    summary: 'Create an account and mail its verification link',
    description:
      'The account exists, unverified, once this answers 201; the verification mail is on its ' +
      'way: queued with the account, and retried on MAIL_RETRY_SCHEDULE while SMTP refuses it, ' +
      'until its link expires (resend-verification-email sends another at once). The verification ' +
      "mail counts toward the address's cap (MAIL_RECIPIENT_LIMIT per MAIL_RECIPIENT_WINDOW " +
      'seconds), but a registration is never refused for it: when the address has had its ' +
      'verification mails, the account is created unmailed and the message says so. With ' +
      'ACCOUNT_ENUMERATION_PROTECTION=true, a taken email (with a free username) is answered ' +
      '201 as a new registration, with a user that is not stored (its id belongs to no ' +
      'account), and the address is told by mail; the verification mail goes out after the ' +
      'answer; a taken username is still 409. An address whose email domain has `sso_required` ' +
      'is 403 SSO_REQUIRED (its accounts come from its provider). A `before_user_created` hook ' +
      '(docs/hooks.md) is asked first: 403 REGISTRATION_REJECTED with its message when it says ' +
      'no, 503 HOOK_UNAVAILABLE when it fails (HOOK_FAILURE=closed). Shares the strict rate limit ' +
      'of login and the email links.',
  })
  @Public()
  @ApiEnvelope(
    201,
    'Registration successful. A verification email is on its way: check your inbox.',
    {
      data: UserDataModel,
    },
  )
  @ApiErrors(
    ['REGISTRATION_FAILED', 400],
    'REGISTRATION_FAILED',
    'SSO_REQUIRED',
    'REGISTRATION_REJECTED',
    'HOOK_UNAVAILABLE',
    ...JSON_BODY,
    ...STORED,
  )
  async register(@Body() body: RegisterDto, @Client() client: ClientInfo): Promise<UserEnvelope> {
    // Asked before anything is stored (docs/hooks.md): a rejection is 403 REGISTRATION_REJECTED.
    const proposed = { email: cleanEmail(body.email), username: body.username.trim() };
    await this.hooks.beforeUserCreated(proposed, 'password');
    const { user, mail } = await this.registration.register(body, client);
    return ok(REGISTERED[mail], { user: publicUser(user) });
  }

  @Post('login')
  @HttpCode(200)
  @StrictThrottle()
  @ApiOperation({
    summary: 'Log in with email and password; tokens in cookies (or the body)',
    description:
      'Without `X-Token-Delivery`, the answer is the envelope with `data.user` and the tokens ' +
      'arrive as HttpOnly cookies. With `X-Token-Delivery: body`, the answer is the token ' +
      'response (`access_token`, `refresh_token`, ...), without envelope or cookies. A wrong ' +
      'email and a wrong password get the same 401. Failed logins slow the account down, from ' +
      'any address and on every instance: while it waits (`LOGIN_BACKOFF_*`), the answer is ' +
      '429 RATE_LIMITED with Retry-After, whatever the password. For a user with a second ' +
      'factor the password step answers `data.mfa_required` and a `challenge` (five minutes, ' +
      'single use) with no cookies and no tokens; `POST /auth/mfa/verify` completes it. An ' +
      'address whose email domain has `sso_required` is 403 SSO_REQUIRED, whatever the password.',
  })
  @Public()
  @ApiTokenDelivery('Login successful', true)
  @ApiErrors(
    ['LOGIN_FAILED', 400],
    'LOGIN_FAILED',
    'ACCOUNT_DISABLED',
    'SSO_REQUIRED',
    ...ANY_BODY,
    ...STORED,
  )
  async login(
    @Body() body: LoginDto,
    @TokenDelivery() delivery: TokenDeliveryMode,
    @Res({ passthrough: true }) res: HttpResponse,
    @Client() client: ClientInfo,
  ) {
    const result = await this.passwordLogin.login(body, client);
    if ('mfa_required' in result) return ok('Second factor required', result);
    return this.sessions.deliver(res, result, delivery, 'Login successful');
  }
}
