import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiParam, ApiQuery, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../auth/decorators/authenticated.decorator';
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
import { LinkedIdentitiesService } from '../linked-identities/linked-identities.service';
import { IdentitiesDataModel, identityView } from '../linked-identities/identity.view';
import { MAX_PAGE_SIZE } from '../users/user-directory.service';
import { MAX_CURSOR_LENGTH, encodeCursor } from '../users/user-list-cursor';
import { User } from '../users/user.entity';
import { AdminUserDataModel, AdminUserPageModel } from './admin-user.view';
import { AdminUsersService } from './admin-users.service';
import { DEFAULT_PAGE_SIZE, MAX_SEARCH_LENGTH, readListQuery } from './dto/list-users.query';
import { SendPasswordResetDto } from './dto/send-password-reset.dto';
import { SetRoleDto } from './dto/set-role.dto';

type UserEnvelope = Envelope<AdminUserDataModel>;

const USER_ID = ApiParam({
  name: 'id',
  description: 'The user id (`user_` and digits).',
  example: 'user_184467440737095516',
});
/** Every route taking an `:id` answers 404 USER_NOT_FOUND for an id no account has. */
const TARGET = ['USER_NOT_FOUND', ...STORED] as const;
/** The 403 of a state-changing route, beside the controller's (ApiErrors merges them). */
const CHANGE = ['FORBIDDEN_ORIGIN'] as const;

/**
 * Administration of accounts, for `role: admin` only (403 FORBIDDEN to anyone else). The first
 * administrator is made by the operator (`npm run users:promote -- EMAIL`), never through the
 * API. Every change is in the audit trail with the acting administrator as `actor_id`. Every
 * route needs a recent sign-in (STEP_UP_MAX_AGE): a stolen session that is hours old cannot
 * administer (`POST /auth/reauthenticate` renews it).
 */
@ApiTags('admin')
@Controller('admin/users')
@Authenticated('admin')
@RecentlyAuthenticated()
export class AdminUsersController {
  constructor(
    private readonly admin: AdminUsersService,
    private readonly identities: LinkedIdentitiesService,
  ) {}

  @Get()
  @ApiOperation({
    operationId: 'listUsers',
    summary: 'List and search users, a page at a time',
    description:
      'Newest first, then by id, so pages are stable. `search` matches the beginning of the ' +
      'email or of the username, case-insensitively and literally (`%` and `_` are characters ' +
      'like any other). Each answer gives `next_cursor`: pass it as `cursor` for the next page, ' +
      'which costs what the first does however deep, and never shows a user twice while others ' +
      'register. `page` skips the pages before it one user at a time: fine for the first ' +
      'pages, slow deep into a large list. ' +
      `\`pageSize\` is ${DEFAULT_PAGE_SIZE} by default and at most ${MAX_PAGE_SIZE}; a value ` +
      'out of range, a cursor the listing did not give, or `page` with `cursor` is 400 ' +
      'VALIDATION_ERROR, never clamped.',
  })
  @ApiQuery({
    name: 'search',
    required: false,
    description: 'The beginning of an email or a username.',
    schema: { type: 'string', maxLength: MAX_SEARCH_LENGTH },
  })
  @ApiQuery({
    name: 'cursor',
    required: false,
    description: 'The `next_cursor` of the page before; not with `page`.',
    schema: { type: 'string', maxLength: MAX_CURSOR_LENGTH },
  })
  @ApiQuery({ name: 'page', required: false, schema: { type: 'integer', minimum: 1, default: 1 } })
  @ApiQuery({
    name: 'pageSize',
    required: false,
    schema: { type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE },
  })
  @ApiEnvelope(200, 'Users', { data: AdminUserPageModel })
  @ApiErrors('VALIDATION_ERROR', ...STORED)
  async listUsers(@Query() query: Record<string, unknown>): Promise<Envelope<AdminUserPageModel>> {
    const result = await this.admin.list(readListQuery(query));
    return ok('Users', {
      users: await this.admin.views(result.items),
      page: result.page,
      page_size: result.pageSize,
      total: result.total,
      total_exact: result.totalExact,
      next_cursor: result.next && encodeCursor(result.next),
    });
  }

  @Get(':id')
  @USER_ID
  @ApiOperation({
    operationId: 'getUser',
    summary: 'Read one user',
    description: 'The account as stored now, with whether it is disabled.',
  })
  @ApiEnvelope(200, 'User', { data: AdminUserDataModel })
  @ApiErrors(...TARGET)
  async getUser(@Param('id') id: string): Promise<UserEnvelope> {
    return ok('User', { user: await this.admin.view(await this.admin.get(id)) });
  }

  @Get(':id/identities')
  @USER_ID
  @ApiOperation({
    operationId: 'getUserIdentities',
    summary: "A user's linked identity providers",
    description: 'The providers the user can sign in with, and the address each gave.',
  })
  @ApiEnvelope(200, 'Identities', { data: IdentitiesDataModel })
  @ApiErrors(...TARGET)
  async getUserIdentities(@Param('id') id: string): Promise<Envelope<IdentitiesDataModel>> {
    const user = await this.admin.get(id);
    const identities = await this.identities.list(user.id);
    return ok('Identities', { identities: identities.map(identityView) });
  }

  @Patch(':id/role')
  @USER_ID
  @ApiOperation({
    operationId: 'setUserRole',
    summary: "Change a user's role",
    description:
      'Applies at once on every instance (the role is read with each token check). An ' +
      'administrator cannot demote their own account: 409 CANNOT_MODIFY_SELF. Records ' +
      '`role_changed` when the role changes.',
  })
  @ApiEnvelope(200, 'Role updated', { data: AdminUserDataModel })
  @ApiErrors('CANNOT_MODIFY_SELF', ...CHANGE, ...JSON_BODY, ...TARGET)
  async setUserRole(
    @RequestUser() admin: User,
    @Param('id') id: string,
    @Body() body: SetRoleDto,
    @Client() client: ClientInfo,
  ): Promise<UserEnvelope> {
    const user = await this.admin.setRole(admin, id, body.role, client);
    return ok('Role updated', { user: await this.admin.view(user) });
  }

  @Post(':id/disable')
  @HttpCode(200)
  @USER_ID
  @ApiOperation({
    operationId: 'disableUser',
    summary: 'Disable an account',
    description:
      'Ends every session and access token of the user at once, on every instance. Until ' +
      'enabled again, login answers 403 ACCOUNT_DISABLED (with the right password only), refresh ' +
      'and every token check 401 INVALID_TOKEN. Password-reset mails still work but do not ' +
      'enable the account. Disabling a disabled account changes nothing. An administrator ' +
      'cannot disable their own account: 409 CANNOT_MODIFY_SELF. Records `account_disabled`.',
  })
  @ApiEnvelope(200, 'Account disabled', { data: AdminUserDataModel })
  @ApiErrors('CANNOT_MODIFY_SELF', ...CHANGE, ...ANY_BODY, ...TARGET)
  async disableUser(
    @RequestUser() admin: User,
    @Param('id') id: string,
    @Client() client: ClientInfo,
  ): Promise<UserEnvelope> {
    const user = await this.admin.disable(admin, id, client);
    return ok('Account disabled', { user: await this.admin.view(user) });
  }

  @Post(':id/enable')
  @HttpCode(200)
  @USER_ID
  @ApiOperation({
    operationId: 'enableUser',
    summary: 'Enable a disabled account',
    description:
      'The user can log in again with their password; the sessions ended by disabling stay ' +
      'ended. Enabling an enabled account changes nothing. Records `account_enabled`.',
  })
  @ApiEnvelope(200, 'Account enabled', { data: AdminUserDataModel })
  @ApiErrors(...CHANGE, ...ANY_BODY, ...TARGET)
  async enableUser(
    @RequestUser() admin: User,
    @Param('id') id: string,
    @Client() client: ClientInfo,
  ): Promise<UserEnvelope> {
    const user = await this.admin.enable(admin, id, client);
    return ok('Account enabled', { user: await this.admin.view(user) });
  }

  @Post(':id/sessions/end')
  @HttpCode(200)
  @USER_ID
  @ApiOperation({
    operationId: 'endUserSessions',
    summary: "End all of a user's sessions",
    description:
      'Every refresh and access token of the user, on every device and every instance, as a ' +
      'logout does; the user can log in again. Records `sessions_ended`.',
  })
  @ApiEnvelope(200, 'Sessions ended')
  @ApiErrors(...CHANGE, ...ANY_BODY, ...TARGET)
  async endUserSessions(
    @RequestUser() admin: User,
    @Param('id') id: string,
    @Client() client: ClientInfo,
  ): Promise<Envelope> {
    await this.admin.endSessions(admin, id, client);
    return ok('Sessions ended');
  }

  @Post(':id/password-reset')
  @HttpCode(200)
  @USER_ID
  @ApiOperation({
    operationId: 'sendUserPasswordReset',
    summary: 'Mail the user a password-reset link',
    description:
      'The mail forgot-password sends, to the address stored on the account; older reset links ' +
      'stop working. The body is optional; `applicationUrl` must be on an origin in ' +
      'APP_ORIGINS. Records `password_reset_requested` with the administrator as actor. ' +
      "Counted in the address's cap of reset mails with the ones the user asks for: past " +
      'MAIL_RECIPIENT_LIMIT in MAIL_RECIPIENT_WINDOW seconds, 429 RATE_LIMITED with Retry-After. ' +
      'An account whose email domain has `sso_required` is 403 SSO_REQUIRED: it has no password.',
  })
  @ApiBody({ type: SendPasswordResetDto, required: false })
  @ApiEnvelope(200, 'Password reset email sent')
  @ApiErrors('EMAIL_SERVICE_ERROR', 'SSO_REQUIRED', ...CHANGE, ...JSON_BODY, ...TARGET)
  async sendUserPasswordReset(
    @RequestUser() admin: User,
    @Param('id') id: string,
    @Body() body: SendPasswordResetDto,
    @Client() client: ClientInfo,
  ): Promise<Envelope> {
    await this.admin.sendPasswordReset(admin, id, body.applicationUrl, client);
    return ok('Password reset email sent');
  }

  @Delete(':id/mfa')
  @USER_ID
  @ApiOperation({
    operationId: 'resetUserSecondFactor',
    summary: "Switch a user's two-step sign-in off",
    description:
      'For a user who lost their authenticator app and their recovery codes: the factor and ' +
      'the codes go, the user can sign in with the password alone and enrol again. Records ' +
      '`mfa_disabled` with the administrator as actor; the user is mailed. 400 ' +
      'VALIDATION_ERROR when it is off.',
  })
  @ApiEnvelope(200, 'Second factor reset', { data: AdminUserDataModel })
  @ApiErrors('VALIDATION_ERROR', ...CHANGE, ...ANY_BODY, ...TARGET)
  async resetUserSecondFactor(
    @RequestUser() admin: User,
    @Param('id') id: string,
    @Client() client: ClientInfo,
  ): Promise<UserEnvelope> {
    const user = await this.admin.resetSecondFactor(admin, id, client);
    return ok('Second factor reset', { user: await this.admin.view(user) });
  }

  @Delete(':id')
  @USER_ID
  @ApiOperation({
    operationId: 'deleteUser',
    summary: 'Delete an account',
    description:
      'The user, its sessions and its emailed tokens, at once; its access tokens are refused ' +
      'on every instance from then on, and its email and username are free again. The audit ' +
      'trail keeps its events and records `account_deleted`. An administrator cannot delete ' +
      'their own account here: 409 CANNOT_MODIFY_SELF.',
  })
  @ApiEnvelope(200, 'User deleted')
  @ApiErrors('CANNOT_MODIFY_SELF', ...CHANGE, ...ANY_BODY, ...TARGET)
  async deleteUser(
    @RequestUser() admin: User,
    @Param('id') id: string,
    @Client() client: ClientInfo,
  ): Promise<Envelope> {
    await this.admin.delete(admin, id, client);
    return ok('User deleted');
  }
}
