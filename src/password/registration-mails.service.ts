import { Injectable, Logger } from '@nestjs/common';
import { ClientInfo } from '../common/http/request-context';
import { MailConfig } from '../config/config.sections';
import { MailRecipientCap } from '../mail/mail-recipient-cap.service';
import { MailService } from '../mail/mail.service';
import { MailQueue } from '../mail/mail-queue.service';
import { EntityManager } from 'typeorm';
import { VerificationTokensService } from '../tokens/verification-tokens.service';
import { User } from '../users/user.entity';
import { NewUser, UsersService } from '../users/users.service';
import { AfterAnswer } from '../mail/after-answer.service';

/**
 * What became of a registration's verification mail: `queued` in the registration's transaction
 * (MailQueue sends and retries it), or not, because the address had its share (`capped`).
 */
export type RegistrationMail = 'queued' | 'capped';

/**
 * The mails a registration sends: the verification mail, and under
 * ACCOUNT_ENUMERATION_PROTECTION the notice to the owner of a taken address. Both are counted
 * in the address's MAIL_RECIPIENT_LIMIT, as the verification mail a new account would take.
 */
@Injectable()
export class RegistrationMails {
  // Logged under the name registration had when it was AuthService's: operators' queries name it.
  private readonly logger = new Logger('AuthService');

  constructor(
    private readonly cap: MailRecipientCap,
    private readonly mail: MailService,
    private readonly mailConfig: MailConfig,
    private readonly verificationTokens: VerificationTokensService,
    private readonly users: UsersService,
    private readonly afterAnswer: AfterAnswer,
    private readonly queue: MailQueue,
  ) {}

  /**
   * In the registration's transaction, once the account is written: its verification token and
   * mail, queued; none when the address has had its share of verification mails (the account is
   * still created, and the mail can be asked for again once the address has a free slot).
   * Returns the queued mail's id.
   */
  async queueVerification(
    manager: EntityManager,
    user: User,
    applicationUrl: string | undefined,
    client: ClientInfo | undefined,
  ): Promise<string | undefined> {
    if ((await this.cap.reserve('verification', user.email)) > 0) {
      this.logger.warn({
        requestId: client?.requestId,
        msg: `Verification email for ${user.id} not sent: its address has had too many lately`,
      });
      return undefined;
    }
    const ttl = this.mailConfig.verificationTtl;
    const token = await this.verificationTokens.issue(manager, user.id, 'email_verification', ttl);
    const message = { to: user.email, username: user.username, token, applicationUrl, ttl };
    const expiresAt = new Date(Date.now() + ttl * 1000);
    return this.queue.queue(manager, { kind: 'verification', message }, expiresAt);
  }

  /**
   * The queued mail's first attempt, once the account has committed: before the answer, or after
   * it (`later`: ACCOUNT_ENUMERATION_PROTECTION). One SMTP refuses is retried by the queue.
   */
  async firstAttempt(
    id: string,
    user: User,
    client: ClientInfo | undefined,
    later: boolean,
  ): Promise<void> {
    const attempt = async () => {
      const refused = await this.queue.attempt(id);
      if (refused === null) return;
      this.logger.warn({
        requestId: client?.requestId,
        msg: `Verification email for ${user.id} not sent (${refused}); retried on MAIL_RETRY_SCHEDULE`,
      });
    };
    if (later) this.afterAnswer.run('A verification email', client, attempt);
    else await attempt();
  }

  /** After the answer, a notice to the owner of the taken address `input` named. */
  attemptNoticeLater(input: NewUser, client: ClientInfo | undefined): void {
    this.afterAnswer.run('A registration-attempt notice', client, async () => {
      if ((await this.cap.reserve('verification', input.email, 'registration_attempt')) > 0) {
        return;
      }
      const owner = await this.users.findByEmail(input.email);
      // Deleted in the meantime: nobody to tell.
      if (!owner) return;
      await this.mail.sendRegistrationAttemptNotice({
        to: owner.email,
        username: owner.username,
        at: new Date(),
        ip: client?.ip,
      });
    });
  }
}
