import { Injectable } from '@nestjs/common';
import { AppException } from '../common/errors/app.exception';
import { ClientInfo } from '../common/http/request-context';
import { SecurityConfig } from '../config/config.sections';
import { AfterAnswer } from '../mail/after-answer.service';
import { ApplicationUrlPolicy } from '../auth/application-url.policy';
import { MailRequest } from '../auth/mail-request';
import { SsoRequirement } from '../auth/sso-requirement';
import { MailRecipientCap } from '../mail/mail-recipient-cap.service';
import { UsersService } from '../users/users.service';
import { EmailLinksService } from './email-links.service';

/** Someone asks, by address, for a verification or reset link. */
@Injectable()
export class LinkRequests {
  private readonly hideAccounts: boolean;

  constructor(
    private readonly users: UsersService,
    private readonly cap: MailRecipientCap,
    private readonly applicationUrls: ApplicationUrlPolicy,
    private readonly afterAnswer: AfterAnswer,
    private readonly sso: SsoRequirement,
    private readonly flows: EmailLinksService,
    security: SecurityConfig,
  ) {
    this.hideAccounts = security.accountEnumerationProtection;
  }

  /**
   * 409 EMAIL_ALREADY_VERIFIED for a verified or unknown address (the contract's one code), 429
   * when the address has had its verification mails for now.
   *
   * With ACCOUNT_ENUMERATION_PROTECTION (as for a reset): 'queued' whatever the address, and 429
   * alike for any address typed too often; whether an account is there is looked up, and mailed,
   * after the answer.
   */
  async resendVerification(
    email: string,
    applicationUrl?: string,
    client?: ClientInfo,
  ): Promise<MailRequest> {
    const url = this.applicationUrls.check(applicationUrl, 'applicationUrl');
    if (this.hideAccounts) {
      await this.cap.take('verification', email);
      this.afterAnswer.run('A verification email', client, async () => {
        const user = await this.users.findByEmail(email);
        if (user && !user.emailVerified) {
          await this.flows.mailVerification(user, url, client);
        }
      });
      return 'queued';
    }
    const user = await this.users.findByEmail(email);
    if (!user || user.emailVerified) {
      throw new AppException('EMAIL_ALREADY_VERIFIED', {
        message: 'The email is already verified or no account uses it',
      });
    }
    await this.cap.take('verification', user.email);
    await this.flows.mailVerification(user, url, client);
    return 'sent';
  }

  /**
   * A new link retires the older ones once it has been sent; 404 when no account uses the email,
   * 429 when the address has had its reset mails for now (and the older link stays); 403
   * SSO_REQUIRED, with no mail, for an address whose domain signs in through its provider only
   * (a password would be a way around it).
   */
  async requestPasswordReset(
    email: string,
    applicationUrl?: string,
    client?: ClientInfo,
  ): Promise<MailRequest> {
    this.sso.refuse(email);
    const url = this.applicationUrls.check(applicationUrl, 'applicationUrl');
    if (this.hideAccounts) {
      await this.cap.take('password_reset', email);
      this.afterAnswer.run('A password reset email', client, async () => {
        const user = await this.users.findByEmail(email);
        if (user) await this.flows.mailPasswordReset(user, url, client, null);
      });
      return 'queued';
    }
    const user = await this.users.findByEmail(email);
    if (!user) throw new AppException('USER_NOT_FOUND');
    await this.cap.take('password_reset', user.email);
    await this.flows.mailPasswordReset(user, url, client, null);
    return 'sent';
  }
}
