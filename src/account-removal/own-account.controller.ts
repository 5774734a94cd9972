import { Body, Controller, Delete, HttpCode, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { ChangeConfirmation } from '../auth/change-confirmation.service';
import { AuthCookies } from '../auth/auth-cookies.service';
import { Authenticated } from '../auth/decorators/authenticated.decorator';
import { AppException } from '../common/errors/app.exception';
import { Envelope, ok } from '../common/http/envelope';
import { HttpResponse } from '../common/http/http-request';
import { Client, ClientInfo } from '../common/http/request-context';
import { RequestUser } from '../common/http/request-user.decorator';
import { AuthTime } from '../common/http/session-id.decorator';
import {
  ApiEnvelope,
  ApiErrors,
  CLEAR_COOKIES,
  JSON_BODY,
  STORED,
} from '../openapi/api-responses.decorator';
import { User } from '../users/user.entity';
import { UsersService } from '../users/users.service';
import { AccountRemoval } from './account-removal.service';
import { DeleteAccountDto } from './dto/delete-account.dto';

/**
 * The signed-in user deletes their own account, confirmed by the current password (or, for an
 * account without one, a recent sign-in).
 */
@ApiTags('users')
@Controller('users')
export class OwnAccountController {
  constructor(
    private readonly users: UsersService,
    private readonly confirmation: ChangeConfirmation,
    private readonly removal: AccountRemoval,
    private readonly cookies: AuthCookies,
  ) {}

  @Delete('me')
  @HttpCode(200)
  @Authenticated()
  @ApiOperation({
    operationId: 'deleteAccount',
    summary: 'Delete my account (confirmed by the current password, or a recent sign-in)',
    description:
      'Deletes the account, its sessions and its emailed tokens at once; every access token of ' +
      'it is refused from then on, on every instance, and the cookies are cleared. The email ' +
      'and username can be registered again. The audit trail keeps the account’s events and ' +
      'records `account_deleted`. A wrong password is 403 INVALID_PASSWORD (not 401, which ' +
      'would make a browser client refresh and retry); wrong passwords count towards the ' +
      "account's login slow-down (429 RATE_LIMITED), so a stolen token cannot guess on and on. " +
      'An account without a password (`has_password: false` in GET /users/me) sends none: a ' +
      'sign-in within STEP_UP_MAX_AGE confirms it instead (403 REAUTHENTICATION_REQUIRED past ' +
      'it: POST /auth/reauthenticate, then again); a password sent for it, or none for an ' +
      'account that has one, is 400 VALIDATION_ERROR.',
  })
  @ApiEnvelope(200, 'Account deleted', { headers: CLEAR_COOKIES })
  @ApiErrors(
    'INVALID_PASSWORD',
    'REAUTHENTICATION_REQUIRED',
    'FORBIDDEN_ORIGIN',
    'RATE_LIMITED',
    ...JSON_BODY,
    ...STORED,
  )
  async deleteAccount(
    @RequestUser() user: User,
    @Body() body: DeleteAccountDto,
    @Res({ passthrough: true }) res: HttpResponse,
    @AuthTime() authTime: number | undefined,
    @Client() client: ClientInfo,
  ): Promise<Envelope> {
    // The hash as stored now, not the token check's cached copy; wrong guesses count toward
    // the account's login slow-down, as on every route a password confirms.
    const current = await this.users.findById(user.id);
    if (!current) throw new AppException('INVALID_TOKEN');
    await this.confirmation.confirm(current, body.password, authTime);
    await this.removal.remove(user.id, client);
    this.cookies.clear(res);
    return ok('Account deleted');
  }
}
