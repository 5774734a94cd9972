import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { AuthenticatedBeforeEnrolment } from '../auth/decorators/authenticated.decorator';
import { RecentlyAuthenticated } from '../auth/guards/second-factor.guard';
import { Envelope, ok } from '../common/http/envelope';
import { Client, ClientInfo } from '../common/http/request-context';
import { RequestUser } from '../common/http/request-user.decorator';
import {
  ANY_BODY,
  ApiEnvelope,
  ApiErrors,
  JSON_BODY,
  STORED,
} from '../openapi/api-responses.decorator';
import { User } from '../users/user.entity';
import { RegisterPasskeyDto, RenamePasskeyDto } from './dto/passkey-bodies.dto';
import {
  PasskeyCreationOptionsDataModel,
  PasskeyDataModel,
  PasskeysDataModel,
  passkeyView,
} from './passkey.view';
import { PasskeysService } from './passkeys.service';

const PASSKEY_ID = { name: 'id', description: 'The passkey id, as listed (`pk_…`).' };

/**
 * The signed-in user's passkeys. Registering one needs a recent sign-in (STEP_UP_MAX_AGE), at
 * its options and again at its finish: a passkey is a way in, as a password is. A passkey is also a second factor, so a user whose role
 * must have one (MFA_REQUIRED_ROLES) may use these routes before enrolling.
 */
@ApiTags('users')
@Controller('users/me/passkeys')
@AuthenticatedBeforeEnrolment()
export class PasskeysController {
  constructor(private readonly passkeys: PasskeysService) {}

  @Post('options')
  @HttpCode(200)
  @RecentlyAuthenticated()
  @ApiOperation({
    operationId: 'beginPasskeyRegistration',
    summary: 'Options for registering a passkey',
    description:
      "WebAuthn's `PublicKeyCredentialCreationOptionsJSON` for `startRegistration` of " +
      '@simplewebauthn/browser: relying party WEBAUTHN_RP_ID, a discoverable credential ' +
      "required, attestation `none`, the account's passkeys excluded. Its challenge is good " +
      'once, for five minutes, on any instance. Takes no body. An account whose email domain ' +
      'has `sso_required` is 403 SSO_REQUIRED: it signs in through its provider only.',
  })
  @ApiEnvelope(200, 'Create your passkey', { data: PasskeyCreationOptionsDataModel })
  @ApiErrors('FORBIDDEN_ORIGIN', 'SSO_REQUIRED', ...ANY_BODY, ...STORED)
  async options(@RequestUser() user: User): Promise<Envelope<PasskeyCreationOptionsDataModel>> {
    const options = await this.passkeys.registrationOptions(user);
    return ok('Create your passkey', { options: { ...options } });
  }

  @Post()
  // Checked again at the finish: a ceremony begun within the window must not end after it.
  @RecentlyAuthenticated()
  @ApiOperation({
    operationId: 'registerPasskey',
    summary: 'Register a passkey: the answer to the options, and a name',
    description:
      "Takes `{response, name?}`: WebAuthn's `RegistrationResponseJSON` as `startRegistration` " +
      'answers it, and a name (default `Passkey`). Any fault (a used or expired challenge, a ' +
      'page whose origin is not in WEBAUTHN_ORIGINS, a passkey registered already) is 401 ' +
      'INVALID_PASSKEY; an account whose email domain has `sso_required` is 403 ' +
      'SSO_REQUIRED. Needs a recent sign-in, as the options did, checked again here: 403 ' +
      'REAUTHENTICATION_REQUIRED once STEP_UP_MAX_AGE has passed since, whenever the options ' +
      'were asked for. From then on a password login of the account asks for a second step, ' +
      'which the passkey can answer.',
  })
  @ApiEnvelope(201, 'Passkey registered', { data: PasskeyDataModel })
  @ApiErrors('INVALID_PASSKEY', 'FORBIDDEN_ORIGIN', 'SSO_REQUIRED', ...JSON_BODY, ...STORED)
  async register(
    @RequestUser() user: User,
    @Body() body: RegisterPasskeyDto,
    @Client() client: ClientInfo,
  ): Promise<Envelope<PasskeyDataModel>> {
    const passkey = await this.passkeys.register(user, body.response, body.name, client);
    return ok('Passkey registered', { passkey: passkeyView(passkey) });
  }

  @Get()
  @ApiOperation({
    operationId: 'listPasskeys',
    summary: "The signed-in user's passkeys",
    description: 'Oldest first: id, name, when it was registered and last used.',
  })
  @ApiEnvelope(200, 'Your passkeys', { data: PasskeysDataModel })
  @ApiErrors(...STORED)
  async list(@RequestUser() user: User): Promise<Envelope<PasskeysDataModel>> {
    const passkeys = await this.passkeys.list(user.id);
    return ok('Your passkeys', { passkeys: passkeys.map(passkeyView) });
  }

  @Patch(':id')
  @ApiOperation({
    operationId: 'renamePasskey',
    summary: 'Rename one of my passkeys',
    description: "Another user's passkey and an unknown one both answer 404 PASSKEY_NOT_FOUND.",
  })
  @ApiParam(PASSKEY_ID)
  @ApiEnvelope(200, 'Passkey renamed', { data: PasskeyDataModel })
  @ApiErrors('PASSKEY_NOT_FOUND', 'FORBIDDEN_ORIGIN', ...JSON_BODY, ...STORED)
  async rename(
    @RequestUser() user: User,
    @Param('id') id: string,
    @Body() body: RenamePasskeyDto,
    @Client() client: ClientInfo,
  ): Promise<Envelope<PasskeyDataModel>> {
    const passkey = await this.passkeys.rename(user.id, id, body.name, client);
    return ok('Passkey renamed', { passkey: passkeyView(passkey) });
  }

  @Delete(':id')
  // A passkey is a second factor too: removing it, like switching the authenticator app off,
  // takes a recent sign-in, so a stolen session cannot take a factor away.
  @RecentlyAuthenticated()
  @ApiOperation({
    operationId: 'deletePasskey',
    summary: 'Remove one of my passkeys',
    description:
      "It signs in no more. Another user's passkey and an unknown one both answer 404 " +
      'PASSKEY_NOT_FOUND; the last passkey of an account without a password is its last way ' +
      'in, and stays: 409 LAST_SIGN_IN_METHOD.',
  })
  @ApiParam(PASSKEY_ID)
  @ApiEnvelope(200, 'Passkey removed')
  @ApiErrors('PASSKEY_NOT_FOUND', 'LAST_SIGN_IN_METHOD', 'FORBIDDEN_ORIGIN', ...ANY_BODY, ...STORED)
  async remove(
    @RequestUser() user: User,
    @Param('id') id: string,
    @Client() client: ClientInfo,
  ): Promise<Envelope> {
    await this.passkeys.remove(user, id, client);
    return ok('Passkey removed');
  }
}
