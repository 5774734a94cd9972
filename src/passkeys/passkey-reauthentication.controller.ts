import { Controller, HttpCode, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { AccessTokenOnly } from '../auth/decorators/authenticated.decorator';
import { Envelope, ok } from '../common/http/envelope';
import { RequestUser } from '../common/http/request-user.decorator';
import { ANY_BODY, ApiEnvelope, ApiErrors, STORED } from '../openapi/api-responses.decorator';
import { User } from '../users/user.entity';
import { PasskeyAssertions } from './passkey-assertions.service';
import { PasskeyRequestOptionsDataModel } from './passkey.view';

/**
 * The options of a step-up by passkey; its answer goes to `POST /auth/reauthenticate` with the
 * other proofs (the core's ReauthenticationController), which hands it to this way in's check.
 */
@ApiTags('auth')
@Controller('auth/reauthenticate')
@AccessTokenOnly()
export class PasskeyReauthenticationController {
  constructor(private readonly assertions: PasskeyAssertions) {}

  @Post('passkey/options')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'beginPasskeyReauthentication',
    summary: 'Options for a step-up with one of your passkeys',
    description:
      "WebAuthn's `PublicKeyCredentialRequestOptionsJSON` for `startAuthentication` of " +
      "@simplewebauthn/browser, listing the signed-in account's passkeys, user verification " +
      'required (the passkey alone confirms the person); send its answer to `POST ' +
      '/auth/reauthenticate` as `passkey`. Its challenge is good once, for five minutes, for ' +
      'this account only. Takes no body.',
  })
  @ApiEnvelope(200, 'Confirm with your passkey', { data: PasskeyRequestOptionsDataModel })
  @ApiErrors('INVALID_TOKEN', 'FORBIDDEN_ORIGIN', ...ANY_BODY, ...STORED)
  async passkeyOptions(
    @RequestUser() user: User,
  ): Promise<Envelope<PasskeyRequestOptionsDataModel>> {
    const options = await this.assertions.reauthenticationOptions(user.id);
    return ok('Confirm with your passkey', { options: { ...options } });
  }
}
