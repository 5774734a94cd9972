import { Body, Controller, HttpCode, Inject, Post, Req, Res, UseGuards } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { HttpRequest, HttpResponse } from '../common/http/http-request';
import { Client, ClientInfo } from '../common/http/request-context';
import { RequestUser } from '../common/http/request-user.decorator';
import { SessionId } from '../common/http/session-id.decorator';
import { StrictThrottle } from '../common/throttling/strict-throttle.decorator';
import { IdentityProofDto } from '../mfa/dto/identity-proof.dto';
import { exactlyOne } from '../mfa/dto/mfa-fields';
import { MfaVerifyDto } from '../mfa/dto/mfa-verify.dto';
import { ApiErrors, ApiTokenDelivery, JSON_BODY, STORED } from '../openapi/api-responses.decorator';
import { ApiAccessToken, ApiPublic } from '../openapi/security-schemes';
import { RefreshClaims, isRefreshClaims } from '../sessions/refresh-claims';
import { REFRESH_JWT } from '../tokens/jwt-options';
import { User } from '../users/user.entity';
import { AuthService } from './auth.service';
import { AccessTokenGuard } from './guards/token.guard';
import { SessionDelivery } from './session-delivery.service';
import { Reauthentication } from './reauthentication.service';
import { refreshToken } from './strategies/token-extractors';
import { TokenDelivery, TokenDeliveryMode } from './token-delivery.decorator';

/** The second step of a login, and a fresh authentication of a session already signed in. */
@ApiTags('auth')
@Controller('auth')
export class SecondFactorController {
  constructor(
    private readonly auth: AuthService,
    private readonly reauthentication: Reauthentication,
    private readonly sessions: SessionDelivery,
    @Inject(REFRESH_JWT) private readonly refreshJwt: JwtService,
  ) {}

  @Post('mfa/verify')
  @HttpCode(200)
  @StrictThrottle()
  @ApiOperation({
    operationId: 'verifySecondFactor',
    summary: "Complete a login's second step with a code, a recovery code or a passkey",
    description:
      "Takes the password step's `challenge` and `code` (six digits from the authenticator " +
      'app), `recovery_code` or `passkey` (the answer to `POST /auth/mfa/passkey/options`), ' +
      'and answers exactly as login does for a user without a second factor: cookies, or the ' +
      'body tokens with `X-Token-Delivery: body`. The access tokens say `amr: ["pwd", "otp"]`, ' +
      'or `["pwd", "hwk", "mfa"]` (`swk` for a synced passkey). A passkey refused is 401 ' +
      'INVALID_PASSKEY. A wrong code is 401 INVALID_MFA_CODE and counts towards ' +
      "the account's login slow-down (429 RATE_LIMITED with Retry-After while it waits); an " +
      'unknown, used or expired challenge (five minutes) is 401 INVALID_TOKEN. A code is ' +
      'accepted once, on every instance; a used recovery code is mailed about. Shares the ' +
      'strict rate limit of login.',
  })
  @ApiPublic()
  @ApiTokenDelivery('Login successful')
  @ApiErrors(
    'INVALID_TOKEN',
    'INVALID_MFA_CODE',
    'INVALID_PASSKEY',
    'RATE_LIMITED',
    ...JSON_BODY,
    ...STORED,
  )
  async verify(
    @Body() body: MfaVerifyDto,
    @TokenDelivery() delivery: TokenDeliveryMode,
    @Res({ passthrough: true }) res: HttpResponse,
    @Client() client: ClientInfo,
  ) {
    exactlyOne(body, ['code', 'recovery_code', 'passkey']);
    const answer =
      body.passkey !== undefined
        ? { passkey: body.passkey }
        : body.code !== undefined
          ? { code: body.code }
          : { recoveryCode: body.recovery_code! };
    const session = await this.auth.completeLogin(body.challenge, answer, client);
    return this.sessions.deliver(res, session, delivery, 'Login successful');
  }

  @Post('reauthenticate')
  @HttpCode(200)
  @UseGuards(AccessTokenGuard)
  @ApiOperation({
    operationId: 'reauthenticate',
    summary: 'Authenticate the signed-in session again (step-up), with the password or a code',
    description:
      'Takes `{password}` or `{code}` (the authenticator app) and answers new tokens for the ' +
      'same session (same `sid`), with `auth_time` now and `amr` the method used, delivered ' +
      'as login does (cookies, or the body tokens with `X-Token-Delivery: body`). Routes that ' +
      'need a recent sign-in (STEP_UP_MAX_AGE) answer 403 REAUTHENTICATION_REQUIRED until ' +
      'then. A wrong password is 403 INVALID_PASSWORD, a wrong code 401 INVALID_MFA_CODE; ' +
      "both count towards the account's login slow-down.",
  })
  @ApiAccessToken()
  @ApiTokenDelivery('Authenticated again')
  @ApiErrors(
    'INVALID_TOKEN',
    'INVALID_PASSWORD',
    'INVALID_MFA_CODE',
    'RATE_LIMITED',
    'FORBIDDEN_ORIGIN',
    ...JSON_BODY,
    ...STORED,
  )
  async reauthenticate(
    @RequestUser() user: User,
    @SessionId() sessionId: string,
    @Body() body: IdentityProofDto,
    @Req() req: HttpRequest,
    @TokenDelivery() delivery: TokenDeliveryMode,
    @Res({ passthrough: true }) res: HttpResponse,
    @Client() client: ClientInfo,
  ) {
    exactlyOne(body, ['password', 'code']);
    const session = await this.reauthentication.reauthenticate(
      user,
      sessionId,
      body.password !== undefined ? { password: body.password } : { code: body.code! },
      this.presentedRefresh(req),
      client,
    );
    return this.sessions.deliver(res, session, delivery, 'Authenticated again');
  }

  /** The session's refresh token, when the browser sent its cookie (it travels to /auth). */
  private presentedRefresh(req: HttpRequest): RefreshClaims | undefined {
    const token = refreshToken(req);
    if (token === null) return undefined;
    try {
      const claims: unknown = this.refreshJwt.verify(token);
      return isRefreshClaims(claims) ? claims : undefined;
    } catch {
      return undefined;
    }
  }
}
