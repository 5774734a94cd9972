import { Injectable, Logger } from '@nestjs/common';
import { DomainEvents } from '../events/domain-events.service';
import { AfterAnswer } from '../mail/after-answer.service';
import { ApplicationUrlPolicy } from '../auth/application-url.policy';
import { MailRequest } from '../auth/mail-request';
import { AppException } from '../common/errors/app.exception';
import { ClientInfo } from '../common/http/request-context';
import { EmailCodeConfig, SecurityConfig } from '../config/config.sections';
import { isForeignKeyViolation } from '../database/database-errors';
import { SsoRequirement } from '../auth/sso-requirement';
import { MailRecipientCap } from '../mail/mail-recipient-cap.service';
import { MailDeliveryError, MailService } from '../mail/mail.service';
import { User } from '../users/user.entity';
import { UsersService } from '../users/users.service';
import { EmailCodes } from './email-codes.service';

/** The sign-in code's mail: a code and its link, counted in the address's MAIL_RECIPIENT_LIMIT. */
@Injectable()
export class EmailCodeMails {
  // Logged under the name the sign-in had when it sent these: operators' queries name it.
  private readonly logger = new Logger('EmailCodeSignIn');
  private readonly hideAccounts: boolean;

  constructor(
    private readonly codes: EmailCodes,
    private readonly users: UsersService,
    private readonly mail: MailService,
    private readonly cap: MailRecipientCap,
    private readonly applicationUrls: ApplicationUrlPolicy,
    private readonly events: DomainEvents,
    private readonly afterAnswer: AfterAnswer,
    private readonly config: EmailCodeConfig,
    private readonly sso: SsoRequirement,
    security: SecurityConfig,
  ) {
    this.hideAccounts = security.accountEnumerationProtection;
  }

  /**
   * Mails a code and its link; the user's older codes stop working once it is sent. As
   * forgot-password answers: 404 USER_NOT_FOUND for an address no account uses, 429 when the
   * address has had its sign-in mails for now. With ACCOUNT_ENUMERATION_PROTECTION, 'queued'
   * whatever the address (the cap counts every address typed) and the mail goes out after the
   * answer, if an account uses it.
   */
  async request(
    email: string,
    applicationUrl: string | undefined,
    client: ClientInfo,
  ): Promise<MailRequest> {
    this.sso.refuse(email);
    const url = this.applicationUrls.check(applicationUrl, 'applicationUrl');
    if (this.hideAccounts) {
      await this.cap.take('email_code', email);
      this.afterAnswer.run('A sign-in code email', client, async () => {
        const user = await this.users.findByEmail(email);
        if (user) await this.mailCode(user, url, client);
      });
      return 'queued';
    }
    const user = await this.users.findByEmail(email);
    if (!user) throw new AppException('USER_NOT_FOUND');
    await this.cap.take('email_code', user.email);
    await this.mailCode(user, url, client);
    return 'sent';
  }

  /**
   * Issues a code and mails it to the address stored on the account; a code whose mail could
   * not be sent is deleted again (503). The caller has taken the mail's slot of the cap.
   */
  private async mailCode(user: User, url: string | undefined, client: ClientInfo): Promise<void> {
    const issued = await this.codes.issue(user.id).catch((error: unknown) => {
      // The account was deleted between its lookup and this insert: as if it had not been found.
      if (isForeignKeyViolation(error)) throw new AppException('USER_NOT_FOUND');
      throw error;
    });
    try {
      await this.mail.sendEmailCode({
        to: user.email,
        username: user.username,
        token: issued.token,
        code: issued.code,
        applicationUrl: url,
        ttl: this.config.ttl,
      });
    } catch (error) {
      await this.codes.discard(issued.token).catch(() => {
        // Never sent, so nobody holds it; it expires unused.
        this.logger.warn({
          requestId: client.requestId,
          msg: `Could not delete an unsent sign-in code of ${user.id}`,
        });
      });
      if (error instanceof MailDeliveryError) {
        this.logger.warn({
          requestId: client.requestId,
          msg: `The sign-in code email to ${user.id} was not sent (${error.reason})`,
        });
        throw new AppException('EMAIL_SERVICE_ERROR');
      }
      throw error;
    }
    await this.codes.retireOthers(user.id, issued.token);
    await this.events.signalAlone({
      type: 'email_code.requested',
      userId: user.id,
      origin: { client },
    });
  }
}
