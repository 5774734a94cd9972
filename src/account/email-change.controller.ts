import { Body, Controller, Get, HttpCode, Post, Res } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../auth/decorators/authenticated.decorator';
import { LinkPage, renderLinkPage } from '../auth/link-page';
import { Envelope, ok } from '../common/http/envelope';
import { HttpResponse } from '../common/http/http-request';
import { Client, ClientInfo } from '../common/http/request-context';
import { RequestUser } from '../common/http/request-user.decorator';
import { AuthTime } from '../common/http/session-id.decorator';
import { AppConfig } from '../config/config.sections';
import { UserDataModel } from '../openapi/api-models';
import { ApiEnvelope, ApiErrors, JSON_BODY, STORED } from '../openapi/api-responses.decorator';
import { Public } from '../auth/decorators/public.decorator';
import { User } from '../users/user.entity';
import { publicUser } from '../users/user.view';
import {
  EmailChangeConfirmDto,
  EmailChangeRequestDto,
  EmailChangeUndoDto,
} from './dto/email-change.dto';
import { EmailChangeService } from './email-change.service';
import { EmailChangeUndoService } from './email-change-undo.service';

const SENT = 'Check the new address: the change is made once its link is opened.';
const UNDONE =
  'The account is back at this address and every session of it has ended. Choose a new ' +
  'password now with "Forgot password" on the sign-in page.';

@ApiTags('users')
@Controller('users/me/email')
export class EmailChangeController {
  constructor(
    private readonly changes: EmailChangeService,
    private readonly undoing: EmailChangeUndoService,
    private readonly app: AppConfig,
    private readonly adapterHost: HttpAdapterHost,
  ) {}

  @Post()
  @HttpCode(200)
  @Authenticated()
  @ApiOperation({
    operationId: 'requestEmailChange',
    summary: 'Ask to change the email address, confirmed by the password (or a recent sign-in)',
    description:
      'Mails a single-use link to `newEmail` (to `applicationUrl?token=…` when given, its ' +
      "origin in APP_ORIGINS, else to the service's own page), valid EMAIL_CHANGE_TTL " +
      'seconds (1 hour by default); the account keeps its address until the link is used. ' +
      'Once the mail is sent, change links sent earlier stop working, and the current address ' +
      'is told that a change was asked for. A wrong password is 403 INVALID_PASSWORD. An ' +
      'account without a password (`has_password: false` in GET /users/me) sends none: a ' +
      'sign-in within STEP_UP_MAX_AGE confirms it instead (403 REAUTHENTICATION_REQUIRED past ' +
      'it: POST /auth/reauthenticate, then again); a password sent for it, or none for an ' +
      'account that has one, is 400 VALIDATION_ERROR. An address another account has is 409 ' +
      'REGISTRATION_FAILED, as at ' +
      "registration. Wrong passwords count towards the account's login slow-down (429 " +
      'RATE_LIMITED with Retry-After while it waits), shared with login on every instance. ' +
      'The new address gets at most MAIL_RECIPIENT_LIMIT of these links in any ' +
      'MAIL_RECIPIENT_WINDOW seconds, whoever asks: past it 429 RATE_LIMITED with Retry-After, ' +
      'nothing is mailed and the pending link stays. An account on an email domain that has ' +
      "`sso_required` cannot move off it (to an address that domain's provider does not " +
      'sign in): 403 SSO_REQUIRED.',
  })
  @ApiEnvelope(200, SENT)
  @ApiErrors(
    'INVALID_PASSWORD',
    'SSO_REQUIRED',
    'REAUTHENTICATION_REQUIRED',
    'REGISTRATION_FAILED',
    'EMAIL_SERVICE_ERROR',
    'FORBIDDEN_ORIGIN',
    ...JSON_BODY,
    ...STORED,
  )
  async requestEmailChange(
    @RequestUser() user: User,
    @Body() body: EmailChangeRequestDto,
    @AuthTime() authTime: number | undefined,
    @Client() client: ClientInfo,
  ): Promise<Envelope> {
    await this.changes.request(
      user.id,
      { password: body.password, authTime },
      body.newEmail,
      body.applicationUrl,
      client,
    );
    return ok(SENT);
  }

  @Post('confirm')
  @HttpCode(200)
  @Public()
  @ApiOperation({
    operationId: 'confirmEmailChange',
    summary: 'Complete an email change with the token mailed to the new address (single use)',
    description:
      'No access token needed: the emailed token is the credential. Uses the token up and ' +
      'moves the account to the new address, verified; the old address gets a notice with a ' +
      'link that undoes the change (POST /users/me/email/undo), valid EMAIL_CHANGE_TTL. ' +
      'Sessions stay signed in. An unknown, expired, used or superseded token is 401 ' +
      'INVALID_TOKEN; an address another account took meanwhile is 409 REGISTRATION_FAILED ' +
      'and changes nothing.',
  })
  @ApiEnvelope(200, 'Email changed', { data: UserDataModel })
  @ApiErrors('INVALID_TOKEN', 'REGISTRATION_FAILED', ...JSON_BODY, ...STORED)
  async confirmEmailChange(
    @Body() body: EmailChangeConfirmDto,
    @Client() client: ClientInfo,
  ): Promise<Envelope<UserDataModel>> {
    const user = await this.changes.confirm(body.token, client);
    return ok('Email changed', { user: publicUser(user) });
  }

  @Get('confirm')
  @Public()
  @LinkPage(
    'The page an emailed change-of-email link opens (no applicationUrl given)',
    'Opening it changes nothing, so mail scanners that follow links cannot use the token up: ' +
      "the page's button posts the token to POST /users/me/email/confirm.",
  )
  confirmEmailChangePage(@Res({ passthrough: true }) res: HttpResponse): Promise<string> {
    return renderLinkPage(this.adapterHost, res, 'confirm-email-change', {
      title: 'Confirm your new email',
      appName: this.app.appName,
    });
  }

  @Post('undo')
  @HttpCode(200)
  @Public()
  @ApiOperation({
    operationId: 'undoEmailChange',
    summary: 'Undo an email change with the token mailed to the old address (single use)',
    description:
      'No access token needed: the token in the email-changed notice is the credential, valid ' +
      'EMAIL_CHANGE_TTL seconds from the change. Moves the account back to the old address ' +
      '(verified), ends every session and access token of it, and stops every link mailed ' +
      'meanwhile (change, reset, verification, other undo links). A password change or reset ' +
      'made since does not withdraw it: whoever made the change could make those. The password ' +
      'stays as it is: the answer says to choose a new one. An unknown, expired or used token ' +
      'is 401 INVALID_TOKEN; an old address that another account has registered since is 409 ' +
      'REGISTRATION_FAILED, and nothing changes.',
  })
  @ApiEnvelope(200, UNDONE, { data: UserDataModel })
  @ApiErrors('INVALID_TOKEN', 'REGISTRATION_FAILED', ...JSON_BODY, ...STORED)
  async undoEmailChange(
    @Body() body: EmailChangeUndoDto,
    @Client() client: ClientInfo,
  ): Promise<Envelope<UserDataModel>> {
    const user = await this.undoing.undo(body.token, client);
    return ok(UNDONE, { user: publicUser(user) });
  }

  @Get('undo')
  @Public()
  @LinkPage(
    'The page the undo link of an email-changed notice opens',
    'Opening it changes nothing, so mail scanners that follow links cannot use the token up: ' +
      "the page's button posts the token to POST /users/me/email/undo.",
  )
  undoEmailChangePage(@Res({ passthrough: true }) res: HttpResponse): Promise<string> {
    return renderLinkPage(this.adapterHost, res, 'undo-email-change', {
      title: 'Undo the change of your email',
      appName: this.app.appName,
    });
  }
}
