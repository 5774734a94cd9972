import { Body, Controller, HttpCode, Post, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Envelope, ok } from '../common/http/envelope';
import { HttpResponse } from '../common/http/http-request';
import { Client, ClientInfo } from '../common/http/request-context';
import { StrictThrottle } from '../common/throttling/strict-throttle.decorator';
import {
  ANY_BODY,
  ApiEnvelope,
  ApiErrors,
  ApiTokenDelivery,
  JSON_BODY,
  STORED,
} from '../openapi/api-responses.decorator';
import { Public } from '../auth/decorators/public.decorator';
import { SessionDelivery } from '../auth/session-delivery.service';
import { TokenDelivery, TokenDeliveryMode } from '../auth/token-delivery.decorator';
import { PasskeySecondFactorOptionsDto, PasskeySignInDto } from './dto/passkey-bodies.dto';
import { PasskeyRequestOptionsDataModel } from './passkey.view';
import { PasskeySignIn } from './passkey-sign-in.service';

/**
 * Signing in with a passkey (no email typed), and the options of a login's second step by
 * passkey. The options routes take only the general rate limit: a sign-in page asks for options
 * as it opens (for the browser's passkey autofill), and each visit would otherwise spend the
 * strict budget that the answer (`/auth/passkey/verify`) draws from.
 */
@ApiTags('auth')
@Controller('auth')
export class PasskeySignInController {
  constructor(
    private readonly passkeys: PasskeySignIn,
    private readonly sessions: SessionDelivery,
  ) {}

  @Post('passkey/options')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'beginPasskeySignIn',
    summary: 'Options for signing in with a passkey, no email typed',
    description:
      "WebAuthn's `PublicKeyCredentialRequestOptionsJSON` for `startAuthentication` of " +
      '@simplewebauthn/browser (also with `useBrowserAutofill` for conditional UI): no ' +
      'credentials listed (the authenticator offers the account’s discoverable one), user ' +
      'verification required, relying party WEBAUTHN_RP_ID. Its challenge is good once, for ' +
      'five minutes, on any instance. Takes no body.',
  })
  @Public()
  @ApiEnvelope(200, 'Sign in with your passkey', { data: PasskeyRequestOptionsDataModel })
  @ApiErrors(...ANY_BODY, ...STORED)
  async options(): Promise<Envelope<PasskeyRequestOptionsDataModel>> {
    const options = await this.passkeys.options();
    return ok('Sign in with your passkey', { options: { ...options } });
  }

  @Post('passkey/verify')
  @HttpCode(200)
  @StrictThrottle()
  @ApiOperation({
    operationId: 'verifyPasskeySignIn',
    summary: 'Sign in with a passkey: the answer to the options',
    description:
      "Takes `{response}`, WebAuthn's `AuthenticationResponseJSON` as `startAuthentication` " +
      'answers it, and answers exactly as login does: cookies, or the body tokens with ' +
      '`X-Token-Delivery: body`; the access tokens say `amr: ["hwk"]` (`["swk"]` for a passkey ' +
      'synced between devices). Any fault (an unknown passkey, a bad signature, a page whose ' +
      'origin is not in WEBAUTHN_ORIGINS, a used or expired challenge, a signature counter ' +
      'that went back, no user verification, a disabled account) is 401 INVALID_PASSKEY. ' +
      'The passkey of an account whose email domain has `sso_required` is 403 SSO_REQUIRED, ' +
      'no session started: it signs in through its provider only. Shares the strict rate ' +
      'limit of login.',
  })
  @Public()
  @ApiTokenDelivery('Login successful')
  @ApiErrors('INVALID_PASSKEY', 'SSO_REQUIRED', 'RATE_LIMITED', ...JSON_BODY, ...STORED)
  async verify(
    @Body() body: PasskeySignInDto,
    @TokenDelivery() delivery: TokenDeliveryMode,
    @Res({ passthrough: true }) res: HttpResponse,
    @Client() client: ClientInfo,
  ) {
    const session = await this.passkeys.signIn(body.response, client);
    return this.sessions.deliver(res, session, delivery, 'Login successful');
  }

  @Post('mfa/passkey/options')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'beginPasskeySecondFactor',
    summary: "Options for answering a login's second step with a passkey",
    description:
      "Takes the password step's `challenge` (its `methods` listed `passkey`) and answers " +
      "WebAuthn's `PublicKeyCredentialRequestOptionsJSON` listing the account's passkeys, for " +
      '`startAuthentication`; send its answer to `POST /auth/mfa/verify` as `passkey` with the ' +
      'same `challenge`. An unknown, used or expired challenge is 401 INVALID_TOKEN.',
  })
  @Public()
  @ApiEnvelope(200, 'Confirm with your passkey', { data: PasskeyRequestOptionsDataModel })
  @ApiErrors('INVALID_TOKEN', ...JSON_BODY, ...STORED)
  async secondFactorOptions(
    @Body() body: PasskeySecondFactorOptionsDto,
  ): Promise<Envelope<PasskeyRequestOptionsDataModel>> {
    const options = await this.passkeys.secondFactorOptions(body.challenge);
    return ok('Confirm with your passkey', { options: { ...options } });
  }
}
