import { Injectable, Logger } from '@nestjs/common';
import { ClientInfo } from '../common/http/request-context';
import { MailConfig } from '../config/config.sections';
import { MailRecipientCap } from '../mail/mail-recipient-cap.service';
import { MailDeliveryError, MailService } from '../mail/mail.service';
import { VerificationTokensService } from '../tokens/verification-tokens.service';
import { User } from '../users/user.entity';
import { NewUser, UsersService } from '../users/users.service';
import { AfterAnswer } from '../mail/after-answer.service';

/** What became of a registration's verification mail (`queued`: it goes out after the answer). */
export type RegistrationMail = 'sent' | 'failed' | 'capped' | 'queued';

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
  ) {}

  /** The verification mail, after the answer. */
  verificationLater(
    user: User,
    token: string,
    applicationUrl: string | undefined,
    client: ClientInfo | undefined,
  ): RegistrationMail {
    this.afterAnswer.run('A verification email', client, async () => {
      await this.verification(user, token, applicationUrl, client);
    });
    return 'queued';
  }

  /**
   * Registration's verification mail: counted with the resends, but never a reason to refuse the
   * account, which is created; the mail can be asked for again once the address has a free slot.
   */
  async verification(
    user: User,
    token: string,
    applicationUrl: string | undefined,
    client: ClientInfo | undefined,
  ): Promise<RegistrationMail> {
    if ((await this.cap.reserve('verification', user.email)) > 0) {
      await this.verificationTokens.discard(token).catch(() => {
        // Never sent, so nobody holds it; it expires unused.
      });
      this.logger.warn({
        requestId: client?.requestId,
        msg: `Verification email for ${user.id} not sent: its address has had too many lately`,
      });
      return 'capped';
    }
    try {
      await this.mail.sendVerificationEmail({
        to: user.email,
        username: user.username,
        token,
        applicationUrl,
        ttl: this.mailConfig.verificationTtl,
      });
      return 'sent';
    } catch (error) {
      if (!(error instanceof MailDeliveryError)) throw error;
      this.logger.warn({
        requestId: client?.requestId,
        msg: `Verification email for ${user.id} not sent (${error.reason}); the user can request it again`,
      });
      return 'failed';
    }
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
