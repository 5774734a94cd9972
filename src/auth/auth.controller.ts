import { Body, Controller, Get, HttpCode, Post, Res } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiTags } from '@nestjs/swagger';
import { HeadersObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { Envelope, ok } from '../common/http/envelope';
import { HttpResponse } from '../common/http/http-request';
import { Client, ClientInfo } from '../common/http/request-context';
import { RequestUser } from '../common/http/request-user.decorator';
import { SessionId } from '../common/http/session-id.decorator';
import { StrictThrottle } from '../common/throttling/strict-throttle.decorator';
import { RefreshClaims } from '../sessions/refresh-claims';
import { User } from '../users/user.entity';
import { publicUser } from '../users/user.view';
import { UserDataModel } from '../openapi/api-models';
import {
  ANY_BODY,
  ApiEnvelope,
  ApiErrors,
  JSON_BODY,
  ApiTokenDelivery,
  STORED,
} from '../openapi/api-responses.decorator';
import { AuthCookies } from './auth-cookies.service';
import { AuthService } from './auth.service';
import { PasswordLogin } from './password-login.service';
import { Registration, RegistrationService } from './registration.service';
import { SessionDelivery } from './session-delivery.service';
import { TokenDelivery, TokenDeliveryMode } from './token-delivery.decorator';
import { LoginDto } from './dto/login.dto';
import { LogoutDto } from './dto/logout.dto';
import { RegisterDto } from './dto/register.dto';
import {
  AccessOrRefreshToken,
  AccessTokenOnly,
  RefreshTokenOnly,
} from './decorators/authenticated.decorator';
import { Public } from './decorators/public.decorator';

type UserEnvelope = Envelope<UserDataModel>;

const REGISTERED: Record<Registration['mail'], string> = {
  sent: 'Registration successful. Check your email to verify your account.',
  queued: 'Registration successful. Check your email to verify your account.',
  failed:
    'Registration successful, but the verification email could not be sent. Request a new one.',
  capped:
    'Registration successful, but this address has had too many emails lately: request the ' +
    'verification email again later.',
};

const CLEARED_UNLESS_OTHERS: HeadersObject = {
  'Set-Cookie': {
    description: 'Clears access_token and refresh_token, except with `scope: "others"`.',
    schema: { type: 'string' },
  },
};

@ApiTags('auth')
@Controller('auth')
export class AuthController {
  constructor(
    private readonly auth: AuthService,
    private readonly cookies: AuthCookies,
    private readonly sessions: SessionDelivery,
    private readonly registration: RegistrationService,
    private readonly passwordLogin: PasswordLogin,
  ) {}

  @Post('register')
  @StrictThrottle()
  @ApiOperation({
    summary: 'Create an account and mail its verification link',
    description:
      'The account exists, unverified, once this answers 201, even when the email could not be ' +
      'sent (the message says so; resend-verification-email sends another). The verification ' +
      "mail counts toward the address's cap (MAIL_RECIPIENT_LIMIT per MAIL_RECIPIENT_WINDOW " +
      'seconds), but a registration is never refused for it: when the address has had its ' +
      'verification mails, the account is created unmailed and the message says so. With ' +
      'ACCOUNT_ENUMERATION_PROTECTION=true, a taken email (with a free username) is answered ' +
      '201 as a new registration, with a user that is not stored (its id belongs to no ' +
      'account), and the address is told by mail; the verification mail goes out after the ' +
      'answer; a taken username is still 409. An address whose email domain has `sso_required` ' +
      'is 403 SSO_REQUIRED (its accounts come from its provider). Shares the strict rate limit ' +
      'of login and the email flows.',
  })
  @Public()
  @ApiEnvelope(201, 'Registration successful. Check your email to verify your account.', {
    data: UserDataModel,
  })
  @ApiErrors(
    ['REGISTRATION_FAILED', 400],
    'REGISTRATION_FAILED',
    'SSO_REQUIRED',
    ...JSON_BODY,
    ...STORED,
  )
  async register(@Body() body: RegisterDto, @Client() client: ClientInfo): Promise<UserEnvelope> {
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

  @Post('refresh')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Rotate the refresh token and issue a new access token',
    description:
      'Takes the refresh_token cookie and retires it. Without `X-Token-Delivery`, the answer is ' +
      'the envelope and the new tokens arrive as cookies; with `X-Token-Delivery: body`, the ' +
      'token response. A retired refresh token presented again within REFRESH_REUSE_GRACE ' +
      'seconds gets the same successor; later, it revokes every session of the user. A refused ' +
      'refresh token (401) clears both cookies; any other failure (429, 503) leaves them, so a ' +
      'passing fault signs no one out.',
  })
  @RefreshTokenOnly()
  @ApiTokenDelivery('Token refreshed')
  @ApiErrors('INVALID_TOKEN', 'FORBIDDEN_ORIGIN', ...ANY_BODY, ...STORED)
  async refresh(
    @RequestUser() claims: RefreshClaims,
    @TokenDelivery() delivery: TokenDeliveryMode,
    @Res({ passthrough: true }) res: HttpResponse,
    @Client() client: ClientInfo,
  ) {
    try {
      return this.sessions.deliver(
        res,
        await this.auth.refresh(claims, client),
        delivery,
        'Token refreshed',
      );
    } catch (error) {
      // The guard clears them for the token it refuses; here, for what the rotation refuses.
      this.cookies.clearIfRefused(res, error);
      throw error;
    }
  }

  @Post('logout')
  @HttpCode(200)
  @ApiOperation({
    summary: 'End every session of the user, or only this one, or all but this one',
    description:
      'Takes the access token, or the refresh cookie when the access token has expired. The ' +
      'body is optional: without it (or without `scope`) every session of the user ends, on ' +
      'every device, and the cookies are cleared. `{"scope": "current"}` ends only the session ' +
      'of the token presented (cookies cleared); `{"scope": "others"}` ends every other session ' +
      "and keeps this one (cookies kept). Ended sessions' access tokens are refused at once on " +
      'every instance.',
  })
  @AccessOrRefreshToken()
  @ApiBody({ type: LogoutDto, required: false })
  @ApiEnvelope(200, 'Logged out from all devices', { headers: CLEARED_UNLESS_OTHERS })
  @ApiErrors('INVALID_TOKEN', 'FORBIDDEN_ORIGIN', ...JSON_BODY, ...STORED)
  async logout(
    @RequestUser() principal: User | RefreshClaims,
    @SessionId() sessionId: string | undefined,
    @Body() body: LogoutDto,
    @Res({ passthrough: true }) res: HttpResponse,
    @Client() client: ClientInfo,
  ): Promise<Envelope> {
    const scope = body.scope ?? 'all';
    const ended = await this.auth.logout(principal, sessionId, scope, client);
    if (scope === 'others') {
      return ok(`Logged out from ${ended} other session${ended === 1 ? '' : 's'}`);
    }
    this.cookies.clear(res);
    return ok(scope === 'all' ? 'Logged out from all devices' : 'Logged out from this session');
  }

  @Get('verify-token')
  @ApiOperation({
    operationId: 'verifyToken',
    summary: 'Check an access token and return its user',
    description:
      'Checks the signature, expiry and revocation of the access token (bearer header, or the ' +
      'access_token cookie when there is none) and answers its user as stored now.',
  })
  @AccessTokenOnly()
  @ApiEnvelope(200, 'Token is valid', { data: UserDataModel })
  @ApiErrors('INVALID_TOKEN', ...STORED)
  verifyTokenGet(@RequestUser() user: User): UserEnvelope {
    return ok('Token is valid', { user: publicUser(user) });
  }

  @Post('verify-token')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Check an access token and return its user (POST form)',
    description:
      'The same check as the GET form, for clients that can only POST; with the cookie, the ' +
      'CSRF origin check applies as on any POST.',
  })
  @AccessTokenOnly()
  @ApiEnvelope(200, 'Token is valid', { data: UserDataModel })
  @ApiErrors('INVALID_TOKEN', 'FORBIDDEN_ORIGIN', ...ANY_BODY, ...STORED)
  verifyTokenPost(@RequestUser() user: User): UserEnvelope {
    return this.verifyTokenGet(user);
  }
}
