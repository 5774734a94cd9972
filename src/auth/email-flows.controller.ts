import { Body, Controller, HttpCode, Post, Res } from '@nestjs/common';
import { ApiBody, ApiExtraModels, ApiOperation, ApiTags, getSchemaPath } from '@nestjs/swagger';
import { Envelope, ok } from '../common/http/envelope';
import { HttpResponse } from '../common/http/http-request';
import { Client, ClientInfo } from '../common/http/request-context';
import { StrictThrottle } from '../common/throttling/strict-throttle.decorator';
import { verifiedUser } from '../users/user.view';
import { VerifiedEmailDataModel } from '../openapi/api-models';
import {
  ApiEnvelope,
  ApiErrors,
  CLEAR_COOKIES,
  JSON_BODY,
  STORED,
} from '../openapi/api-responses.decorator';
import { AuthCookies } from './auth-cookies.service';
import {
  EmailLinkRequestDto,
  ResetConfirmDto,
  ResetRequestDto,
  VerifyEmailDto,
} from './dto/email-flow.dto';
import { EmailFlowsService } from './email-flows.service';
import { ResetPasswordBodyPipe } from './reset-password-body.pipe';

/**
 * The email flows. Each handler answers its `/auth/` path and the `/email/` aliases decisions.md
 * lists: one handler per flow, so aliases share its code and its strict rate-limit budget.
 */
@ApiTags('email')
@Controller()
export class EmailFlowsController {
  constructor(
    private readonly flows: EmailFlowsService,
    private readonly cookies: AuthCookies,
  ) {}

  @Post(['auth/verify-email', 'email/verify-email', 'email/verify'])
  @HttpCode(200)
  @StrictThrottle()
  @ApiOperation({ summary: "Verify the account's email with the emailed token (single use)" })
  @ApiEnvelope(200, 'Email verified', { data: VerifiedEmailDataModel })
  @ApiErrors('INVALID_TOKEN', ...JSON_BODY, ...STORED)
  async verifyEmail(@Body() body: VerifyEmailDto, @Client() client: ClientInfo) {
    const { user, redirectUrl } = await this.flows.verifyEmail(
      body.token,
      body.applicationUrl,
      client,
    );
    const data: VerifiedEmailDataModel = {
      user: verifiedUser(user),
      ...(redirectUrl ? { redirect_url: redirectUrl } : {}),
    };
    return ok('Email verified', data);
  }

  @Post(['auth/resend-verification-email', 'email/resend-verification-email'])
  @HttpCode(200)
  @StrictThrottle()
  @ApiOperation({ summary: 'Mail a new verification link; older links stop working' })
  @ApiEnvelope(200, 'Verification email sent')
  @ApiErrors('EMAIL_ALREADY_VERIFIED', 'EMAIL_SERVICE_ERROR', ...JSON_BODY, ...STORED)
  async resendVerification(
    @Body() body: EmailLinkRequestDto,
    @Client() client: ClientInfo,
  ): Promise<Envelope> {
    await this.flows.resendVerification(body.email, body.applicationUrl, client);
    return ok('Verification email sent');
  }

  @Post(['auth/forgot-password', 'email/forgot-password'])
  @HttpCode(200)
  @StrictThrottle()
  @ApiOperation({ summary: 'Mail a password-reset link; older links stop working' })
  @ApiEnvelope(200, 'Password reset email sent')
  @ApiErrors('USER_NOT_FOUND', 'EMAIL_SERVICE_ERROR', ...JSON_BODY, ...STORED)
  async forgotPassword(
    @Body() body: EmailLinkRequestDto,
    @Client() client: ClientInfo,
  ): Promise<Envelope> {
    await this.flows.requestPasswordReset(body.email, body.applicationUrl, client);
    return ok('Password reset email sent');
  }

  /** Variant A `{ email }` sends a reset email; variant B `{ token, newPassword }` sets it. */
  @Post(['auth/reset-password', 'email/reset-password', 'email/reset'])
  @HttpCode(200)
  @StrictThrottle()
  @ApiOperation({
    summary:
      'Request a reset email (`{ email }`) or set the new password (`{ token, newPassword }`)',
    description:
      '`{ email }` answers `Password reset email sent`, as forgot-password does. ' +
      '`{ token, newPassword }` sets the password, ends every session of the user and clears ' +
      'the cookies (the Set-Cookie header applies to this variant only).',
  })
  @ApiExtraModels(ResetRequestDto, ResetConfirmDto)
  @ApiBody({
    schema: {
      oneOf: [{ $ref: getSchemaPath(ResetRequestDto) }, { $ref: getSchemaPath(ResetConfirmDto) }],
    },
  })
  @ApiEnvelope(200, 'Password has been reset. Log in with the new password.', {
    headers: CLEAR_COOKIES,
  })
  @ApiErrors('INVALID_TOKEN', 'USER_NOT_FOUND', 'EMAIL_SERVICE_ERROR', ...JSON_BODY, ...STORED)
  async resetPassword(
    @Body(ResetPasswordBodyPipe) body: ResetRequestDto | ResetConfirmDto,
    @Res({ passthrough: true }) res: HttpResponse,
    @Client() client: ClientInfo,
  ): Promise<Envelope> {
    if (body instanceof ResetRequestDto) {
      await this.flows.requestPasswordReset(body.email, undefined, client);
      return ok('Password reset email sent');
    }
    await this.flows.resetPassword(body.token, body.newPassword, client);
    // Every session of the user has just ended, this browser's included.
    this.cookies.clear(res);
    return ok('Password has been reset. Log in with the new password.');
  }
}
