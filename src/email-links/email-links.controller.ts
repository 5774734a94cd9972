import { Body, Controller, HttpCode, Res } from '@nestjs/common';
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
import { PostAt } from '../openapi/operation-ids';
import { Public } from '../auth/decorators/public.decorator';
import { AuthCookies } from '../auth/auth-cookies.service';
import { EmailLinkRequestDto } from '../auth/dto/email-link-request.dto';
import { MailRequest } from '../auth/mail-request';
import { ResetConfirmDto, ResetRequestDto, VerifyEmailDto } from './dto/email-link.dto';
import { EmailVerification } from './email-verification.service';
import { LinkRequests } from './link-requests.service';
import { PasswordReset } from './password-reset.service';
import { ResetPasswordBodyPipe } from './reset-password-body.pipe';

/** Queued: said alike whether or not the address has an account (ACCOUNT_ENUMERATION_PROTECTION). */
const RESET_REQUESTED: Record<MailRequest, string> = {
  sent: 'Password reset email sent',
  queued: 'If an account uses this address, a password reset email is on its way',
};
const VERIFICATION_REQUESTED: Record<MailRequest, string> = {
  sent: 'Verification email sent',
  queued: 'If an unverified account uses this address, a verification email is on its way',
};

/**
 * The email links. Each handler answers its `/auth/` path and the `/email/` aliases decisions.md
 * lists: one handler per flow, so aliases share its code and its strict rate-limit budget.
 */
@ApiTags('email')
@Public()
@Controller()
export class EmailLinksController {
  constructor(
    private readonly requests: LinkRequests,
    private readonly verification: EmailVerification,
    private readonly reset: PasswordReset,
    private readonly cookies: AuthCookies,
  ) {}

  @PostAt({
    verifyEmail: 'auth/verify-email',
    verifyEmailAlias: 'email/verify-email',
    verifyEmailShortAlias: 'email/verify',
  })
  @HttpCode(200)
  @StrictThrottle()
  @ApiOperation({
    summary: "Verify the account's email with the emailed token (single use)",
    description:
      'Uses up the token and marks the email verified; with `applicationUrl`, the answer names ' +
      'where the page should send the user next. ' +
      'The same operation answers at /auth/verify-email, /email/verify-email and /email/verify, ' +
      'with one rate-limit budget.',
  })
  @ApiEnvelope(200, 'Email verified', { data: VerifiedEmailDataModel })
  @ApiErrors('INVALID_TOKEN', ...JSON_BODY, ...STORED)
  async verifyEmail(@Body() body: VerifyEmailDto, @Client() client: ClientInfo) {
    const { user, redirectUrl } = await this.verification.verifyEmail(
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

  @PostAt({
    resendVerificationEmail: 'auth/resend-verification-email',
    resendVerificationEmailAlias: 'email/resend-verification-email',
  })
  @HttpCode(200)
  @StrictThrottle()
  @ApiOperation({
    summary: 'Mail another verification link to an unverified account',
    description:
      'Links sent earlier keep working: each verifies the email once, until it expires ' +
      '(EMAIL_VERIFICATION_TTL seconds after it was sent, 24 hours by default), so an older ' +
      'mail opened after this one still succeeds. 409 once the email is verified, and for an ' +
      'address no account uses. An address gets at most MAIL_RECIPIENT_LIMIT verification ' +
      "mails (the registration's included) in any MAIL_RECIPIENT_WINDOW seconds: past it 429 " +
      'RATE_LIMITED with Retry-After, and nothing is mailed. With ' +
      'ACCOUNT_ENUMERATION_PROTECTION=true every address gets the same 200 (never 409 or 503), ' +
      'the mail goes out after the answer if an unverified account uses the address, and the ' +
      'cap counts every address typed. ' +
      'The same operation answers at /auth/resend-verification-email and ' +
      '/email/resend-verification-email, with one rate-limit budget.',
  })
  @ApiEnvelope(200, 'Verification email sent')
  @ApiErrors('EMAIL_ALREADY_VERIFIED', 'EMAIL_SERVICE_ERROR', ...JSON_BODY, ...STORED)
  async resendVerification(
    @Body() body: EmailLinkRequestDto,
    @Client() client: ClientInfo,
  ): Promise<Envelope> {
    const request = await this.requests.resendVerification(body.email, body.applicationUrl, client);
    return ok(VERIFICATION_REQUESTED[request]);
  }

  @PostAt({
    forgotPassword: 'auth/forgot-password',
    forgotPasswordAlias: 'email/forgot-password',
  })
  @HttpCode(200)
  @StrictThrottle()
  @ApiOperation({
    summary: 'Mail a password-reset link; older links stop working',
    description:
      'Once the new mail is sent, every reset link sent earlier to the account stops working; ' +
      'the new one works once, for PASSWORD_RESET_TTL seconds (1 hour by default). An address ' +
      'gets at most MAIL_RECIPIENT_LIMIT reset mails in any MAIL_RECIPIENT_WINDOW seconds, ' +
      'whoever asks: past it 429 RATE_LIMITED with Retry-After, nothing is mailed and the link ' +
      'sent last keeps working. With ACCOUNT_ENUMERATION_PROTECTION=true every address gets ' +
      'the same 200 (never 404 or 503), the mail goes out after the answer if an account uses ' +
      'the address, and the cap counts every address typed. An address whose email domain ' +
      'has `sso_required` is 403 SSO_REQUIRED, nothing mailed: it signs in through its ' +
      'provider only, never with a password. ' +
      'The same operation answers at /auth/forgot-password and /email/forgot-password, with ' +
      'one rate-limit budget.',
  })
  @ApiEnvelope(200, 'Password reset email sent')
  @ApiErrors('USER_NOT_FOUND', 'SSO_REQUIRED', 'EMAIL_SERVICE_ERROR', ...JSON_BODY, ...STORED)
  async forgotPassword(
    @Body() body: EmailLinkRequestDto,
    @Client() client: ClientInfo,
  ): Promise<Envelope> {
    const request = await this.requests.requestPasswordReset(
      body.email,
      body.applicationUrl,
      client,
    );
    return ok(RESET_REQUESTED[request]);
  }

  /** Variant A `{ email }` sends a reset email; variant B `{ token, newPassword }` sets it. */
  @PostAt({
    resetPassword: 'auth/reset-password',
    resetPasswordAlias: 'email/reset-password',
    resetPasswordShortAlias: 'email/reset',
  })
  @HttpCode(200)
  @StrictThrottle()
  @ApiOperation({
    summary:
      'Request a reset email (`{ email }`) or set the new password (`{ token, newPassword }`)',
    description:
      '`{ email }` answers as forgot-password does (the same mail, counted in the same cap, ' +
      'the same answers under ACCOUNT_ENUMERATION_PROTECTION). ' +
      '`{ token, newPassword }` sets the password, ends every session of the user, clears ' +
      'the cookies (the Set-Cookie header applies to this variant only) and mails the account ' +
      'the "your password was changed" notice (the answer does not depend on that mail). ' +
      'Either is 403 SSO_REQUIRED for an account (or address) whose email domain has ' +
      '`sso_required`, and the link stays unused. ' +
      'The same operation answers at /auth/reset-password, /email/reset-password and ' +
      '/email/reset, with one rate-limit budget.',
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
  @ApiErrors(
    'INVALID_TOKEN',
    'USER_NOT_FOUND',
    'SSO_REQUIRED',
    'EMAIL_SERVICE_ERROR',
    ...JSON_BODY,
    ...STORED,
  )
  async resetPassword(
    @Body(ResetPasswordBodyPipe) body: ResetRequestDto | ResetConfirmDto,
    @Res({ passthrough: true }) res: HttpResponse,
    @Client() client: ClientInfo,
  ): Promise<Envelope> {
    if (body instanceof ResetRequestDto) {
      return ok(
        RESET_REQUESTED[await this.requests.requestPasswordReset(body.email, undefined, client)],
      );
    }
    await this.reset.resetPassword(body.token, body.newPassword, client);
    // Every session of the user has just ended, this browser's included.
    this.cookies.clear(res);
    return ok('Password has been reset. Log in with the new password.');
  }
}
