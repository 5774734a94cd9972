import { Body, Controller, HttpCode, Post, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { HttpResponse } from '../common/http/http-request';
import { Client, ClientInfo } from '../common/http/request-context';
import { StrictThrottle } from '../common/throttling/strict-throttle.decorator';
import { exactlyOne } from '../common/validation/exactly-one';
import { SecondFactorVerifyDto } from '../second-factor/dto/second-factor-verify.dto';
import { ApiErrors, ApiTokenDelivery, JSON_BODY, STORED } from '../openapi/api-responses.decorator';
import { Public } from './decorators/public.decorator';
import { AuthService } from './auth.service';
import { SessionDelivery } from './session-delivery.service';
import { TokenDelivery, TokenDeliveryMode } from './token-delivery.decorator';

/** The second step of a login (a session already signed in steps up at ReauthenticationController). */
@ApiTags('auth')
@Controller('auth')
export class SecondFactorController {
  constructor(
    private readonly auth: AuthService,
    private readonly sessions: SessionDelivery,
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
  @Public()
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
    @Body() body: SecondFactorVerifyDto,
    @TokenDelivery() delivery: TokenDeliveryMode,
    @Res({ passthrough: true }) res: HttpResponse,
    @Client() client: ClientInfo,
  ) {
    exactlyOne(body, ['code', 'recovery_code', 'passkey']);
    // The answer goes to the way in that registered its field (the app's code, a passkey).
    const session = await this.auth.completeLogin(body.challenge, { ...body }, client);
    return this.sessions.deliver(res, session, delivery, 'Login successful');
  }
}
