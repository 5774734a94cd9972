import { Body, Controller, Delete, Get, HttpCode, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { ChangeConfirmation } from '../auth/change-confirmation.service';
import { AuthenticatedBeforeEnrolment } from '../auth/decorators/authenticated.decorator';
import { RecentlyAuthenticated } from '../auth/guards/second-factor.guard';
import { Envelope, ok } from '../common/http/envelope';
import { Client, ClientInfo } from '../common/http/request-context';
import { RequestUser } from '../common/http/request-user.decorator';
import { AuthTime } from '../common/http/session-id.decorator';
import { ConfirmTotpDto } from './dto/confirm-totp.dto';
import { IdentityProofDto } from './dto/identity-proof.dto';
import { exactlyOne } from '../common/validation/exactly-one';
import { SecondFactorService } from './second-factor.service';
import {
  SecondFactorStatusModel,
  RecoveryCodesModel,
  TotpEnrolmentModel,
} from './second-factor.view';
import { SecondFactorCodes } from './second-factor-codes.service';
import {
  ANY_BODY,
  ApiEnvelope,
  ApiErrors,
  JSON_BODY,
  STORED,
} from '../openapi/api-responses.decorator';
import { User, hasPassword } from '../users/user.entity';

/**
 * The signed-in user's second factor: an authenticator app (TOTP) and recovery codes. Turning
 * it on, making new recovery codes and turning it off need a recent sign-in (STEP_UP_MAX_AGE);
 * a user whose role must have one (MFA_REQUIRED_ROLES) may use these routes before enrolling.
 */
@ApiTags('users')
@Controller('users/me/mfa')
@AuthenticatedBeforeEnrolment()
export class SecondFactorSettingsController {
  constructor(
    private readonly mfa: SecondFactorService,
    private readonly codes: SecondFactorCodes,
    private readonly confirmation: ChangeConfirmation,
  ) {}

  @Get()
  @ApiOperation({
    operationId: 'getSecondFactor',
    summary: 'Whether two-step sign-in is on, and how many recovery codes are left',
    description: 'Reads only; no recent sign-in needed.',
  })
  @ApiEnvelope(200, 'Second factor', { data: SecondFactorStatusModel })
  @ApiErrors(...STORED)
  async status(@RequestUser() user: User): Promise<Envelope<SecondFactorStatusModel>> {
    return ok('Second factor', await this.mfa.status(user.id));
  }

  @Post('totp')
  @HttpCode(200)
  @RecentlyAuthenticated()
  @ApiOperation({
    operationId: 'beginTotpEnrolment',
    summary: 'Start enrolling an authenticator app: a new secret, its URI and QR code',
    description:
      'The enrolment stays pending (and two-step sign-in off) until `POST ' +
      '/users/me/mfa/totp/confirm` sends a code computed from it; a new call replaces a ' +
      'pending one. Base32 secret, SHA-1, 6 digits, 30 s, issuer APP_NAME, the account email ' +
      'as label. 400 VALIDATION_ERROR when it is on already (switch it off first).',
  })
  @ApiEnvelope(200, 'Scan the QR code, then confirm with a code', { data: TotpEnrolmentModel })
  @ApiErrors('VALIDATION_ERROR', 'FORBIDDEN_ORIGIN', ...ANY_BODY, ...STORED)
  async begin(@RequestUser() user: User): Promise<Envelope<TotpEnrolmentModel>> {
    return ok('Scan the QR code, then confirm with a code', await this.mfa.beginTotp(user));
  }

  @Post('totp/confirm')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'confirmTotpEnrolment',
    summary: 'Switch two-step sign-in on with a first code; answers the recovery codes',
    description:
      'The 10 recovery codes are shown this once (only their hashes are kept). A wrong code is ' +
      "401 INVALID_MFA_CODE and counts towards the account's login slow-down. The account's " +
      'address is mailed.',
  })
  @ApiEnvelope(200, 'Two-step sign-in is on', { data: RecoveryCodesModel })
  @ApiErrors(
    'INVALID_TOKEN',
    'INVALID_MFA_CODE',
    'RATE_LIMITED',
    'FORBIDDEN_ORIGIN',
    ...JSON_BODY,
    ...STORED,
  )
  async confirm(
    @RequestUser() user: User,
    @Body() body: ConfirmTotpDto,
    @Client() client: ClientInfo,
  ): Promise<Envelope<RecoveryCodesModel>> {
    const recovery = await this.codes.confirmEnrolment(user, body.code, client);
    return ok('Two-step sign-in is on', { recovery_codes: recovery });
  }

  @Post('recovery-codes')
  @HttpCode(200)
  @RecentlyAuthenticated()
  @ApiOperation({
    operationId: 'regenerateRecoveryCodes',
    summary: 'Make 10 new recovery codes; the old ones stop working',
    description: 'Shown this once. 400 VALIDATION_ERROR when two-step sign-in is off.',
  })
  @ApiEnvelope(200, 'New recovery codes', { data: RecoveryCodesModel })
  @ApiErrors('VALIDATION_ERROR', 'FORBIDDEN_ORIGIN', ...ANY_BODY, ...STORED)
  async regenerate(
    @RequestUser() user: User,
    @Client() client: ClientInfo,
  ): Promise<Envelope<RecoveryCodesModel>> {
    const recovery = await this.mfa.regenerateRecoveryCodes(user, client);
    return ok('New recovery codes', { recovery_codes: recovery });
  }

  @Delete('totp')
  @RecentlyAuthenticated()
  @ApiOperation({
    operationId: 'disableTotp',
    summary: 'Switch two-step sign-in off, with a code or the password',
    description:
      'Takes `{code}` (the authenticator app) or `{password}`; the recovery codes stop working ' +
      "and the account's address is mailed. A wrong code is 401 INVALID_MFA_CODE, a wrong " +
      "password 403 INVALID_PASSWORD; both count towards the account's login slow-down. An " +
      'account without a password (`has_password: false` in GET /users/me) may send `{}`: ' +
      'its recent sign-in, which this route needs anyway, confirms it (a password sent for ' +
      'it is 400 VALIDATION_ERROR). 400 VALIDATION_ERROR when it is off.',
  })
  @ApiEnvelope(200, 'Two-step sign-in is off')
  @ApiErrors(
    'INVALID_TOKEN',
    'INVALID_MFA_CODE',
    'INVALID_PASSWORD',
    'RATE_LIMITED',
    'FORBIDDEN_ORIGIN',
    ...JSON_BODY,
    ...STORED,
  )
  async disable(
    @RequestUser() user: User,
    @Body() body: IdentityProofDto,
    @AuthTime() authTime: number | undefined,
    @Client() client: ClientInfo,
  ): Promise<Envelope> {
    // An account without a password may send neither: the recent sign-in is its proof.
    const bare = body.password === undefined && body.code === undefined;
    if (!bare || hasPassword(user)) exactlyOne(body, ['password', 'code']);
    if (body.code !== undefined) await this.codes.confirm(user, { code: body.code }, client);
    else await this.confirmation.confirm(user, body.password, authTime);
    await this.mfa.disable(user, client);
    return ok('Two-step sign-in is off');
  }
}
