import { Body, Controller, HttpCode, Post, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { SessionDelivery } from '../auth/session-delivery.service';
import { TokenDelivery, TokenDeliveryMode } from '../auth/token-delivery.decorator';
import { Authenticated } from '../auth/decorators/authenticated.decorator';
import { Envelope } from '../common/http/envelope';
import { HttpResponse } from '../common/http/http-request';
import { Client, ClientInfo } from '../common/http/request-context';
import { RequestUser } from '../common/http/request-user.decorator';
import { SignedInDataModel, TokenResponseModel } from '../openapi/api-models';
import { ApiErrors, ApiTokenDelivery, JSON_BODY, STORED } from '../openapi/api-responses.decorator';
import { User } from '../users/user.entity';
import { ChangePasswordDto } from './dto/change-password.dto';
import { PasswordChangeService } from './password-change.service';

const CHANGED = 'Password changed. Other sessions have been signed out.';

@ApiTags('users')
@Controller('users/me')
export class PasswordController {
  constructor(
    private readonly passwords: PasswordChangeService,
    private readonly sessions: SessionDelivery,
  ) {}

  @Post('password')
  @HttpCode(200)
  @Authenticated()
  @ApiOperation({
    operationId: 'changePassword',
    summary: 'Change the password, confirmed by the current one',
    description:
      'A wrong current password is 403 INVALID_PASSWORD (not 401: the access token is fine). ' +
      'The new password follows the registration rules. On success every session of the user ' +
      'ends, on every instance, and this caller gets a new one in the answer, as login gives ' +
      'it: cookies, or with `X-Token-Delivery: body` the token response (clients that send the ' +
      'access token as a bearer header want that form: the token they sent stops working). ' +
      'Reset links and pending email changes stop working, and a notice goes to the account ' +
      "address. Wrong current passwords count towards the account's login slow-down (429 " +
      'RATE_LIMITED with Retry-After while it waits), shared with login on every instance. ' +
      'An account whose email domain has `sso_required` is 403 SSO_REQUIRED: it signs in ' +
      'through its provider only.',
  })
  @ApiTokenDelivery('Password changed, other sessions signed out')
  @ApiErrors('INVALID_PASSWORD', 'FORBIDDEN_ORIGIN', 'SSO_REQUIRED', ...JSON_BODY, ...STORED)
  async changePassword(
    @RequestUser() user: User,
    @Body() body: ChangePasswordDto,
    @TokenDelivery() delivery: TokenDeliveryMode,
    @Res({ passthrough: true }) res: HttpResponse,
    @Client() client: ClientInfo,
  ): Promise<TokenResponseModel | Envelope<SignedInDataModel>> {
    const changed = await this.passwords.change(
      user.id,
      body.currentPassword,
      body.newPassword,
      client,
    );
    return this.sessions.deliver(res, changed, delivery, CHANGED);
  }
}
