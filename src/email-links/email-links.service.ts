import { Injectable, Logger } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { DomainEvents } from '../events/domain-events.service';
import { AppException } from '../common/errors/app.exception';
import { ClientInfo } from '../common/http/request-context';
import { MailConfig } from '../config/config.sections';
import { Database } from '../database/database.service';
import { isForeignKeyViolation } from '../database/database-errors';
import { ApplicationUrlPolicy } from '../auth/application-url.policy';
import { SsoRequirement } from '../auth/sso-requirement';
import { MailRecipientCap } from '../mail/mail-recipient-cap.service';
import { MailDeliveryError, MailService, TokenMail } from '../mail/mail.service';
import { invalidLink } from '../tokens/invalid-link';
import { TokenPurpose } from '../tokens/verification-token.entity';
import { TokenRefusal, VerificationTokensService } from '../tokens/verification-tokens.service';
import { User } from '../users/user.entity';
import { UsersService } from '../users/users.service';

/**
 * The emailed links themselves: issuing and mailing a verification or reset token, and why a
 * link was refused. Asking for a link (LinkRequests) and following one (EmailVerification,
 * PasswordReset) go through here.
 */
@Injectable()
export class EmailLinksService {
  private readonly logger = new Logger(EmailLinksService.name);

  constructor(
    private readonly database: Database,
    private readonly users: UsersService,
    private readonly tokens: VerificationTokensService,
    private readonly mail: MailService,
    private readonly cap: MailRecipientCap,
    private readonly mailConfig: MailConfig,
    private readonly applicationUrls: ApplicationUrlPolicy,
    private readonly events: DomainEvents,
    private readonly sso: SsoRequirement,
  ) {}

  /**
   * The same reset mail, sent by an administrator (`actorId`) to an account they picked by id.
   * A disabled account gets it too: the reset sets a password and ends the sessions, but never
   * enables the account again.
   */
  async sendPasswordReset(
    user: User,
    applicationUrl: string | undefined,
    client: ClientInfo,
    actorId: string,
  ): Promise<void> {
    this.sso.refuse(user.email);
    const url = this.applicationUrls.check(applicationUrl, 'applicationUrl');
    await this.cap.take('password_reset', user.email);
    await this.mailPasswordReset(user, url, client, actorId);
  }

  /** A verification link, its slot of the cap taken by the caller. */
  async mailVerification(
    user: User,
    url: string | undefined,
    client: ClientInfo | undefined,
  ): Promise<void> {
    await this.mailToken(user, 'email_verification', url, client);
  }

  /** A reset link, its slot of the cap taken by the caller; the older links retire. */
  async mailPasswordReset(
    user: User,
    url: string | undefined,
    client: ClientInfo | undefined,
    actorId: string | null,
  ): Promise<void> {
    const token = await this.mailToken(user, 'password_reset', url, client);
    await this.database.transaction(async (manager) => {
      await this.tokens.retireOlder(manager, user.id, 'password_reset', token);
      await this.events.signal(manager, {
        type: 'password_reset.requested',
        userId: user.id,
        origin: { client, actorId },
      });
    });
  }

  /**
   * Issues a token and mails it; a token whose mail could not be sent is deleted again. The
   * caller has taken the mail's slot of the cap, before anything was written.
   */
  private async mailToken(
    user: User,
    purpose: TokenPurpose,
    applicationUrl: string | undefined,
    client: ClientInfo | undefined,
  ): Promise<string> {
    const ttl =
      purpose === 'password_reset' ? this.mailConfig.resetTtl : this.mailConfig.verificationTtl;
    const token = await this.database
      .run((manager) => this.tokens.issue(manager, user.id, purpose, ttl))
      .catch((error: unknown) => {
        // The account was deleted between its lookup and this insert: as if it had not been found.
        if (!isForeignKeyViolation(error)) throw error;
        throw purpose === 'password_reset'
          ? new AppException('USER_NOT_FOUND')
          : new AppException('EMAIL_ALREADY_VERIFIED', {
              message: 'The email is already verified or no account uses it',
            });
      });
    const message: TokenMail = {
      to: user.email,
      username: user.username,
      token,
      applicationUrl,
      ttl,
    };
    try {
      await (purpose === 'password_reset'
        ? this.mail.sendPasswordResetEmail(message)
        : this.mail.sendVerificationEmail(message));
    } catch (error) {
      await this.tokens.discard(token).catch(() => {
        // Never sent, so nobody holds it; it expires unused. The mail failure is the answer.
        this.logger.warn({
          requestId: client?.requestId,
          msg: `Could not delete an unsent ${purpose} token of ${user.id}`,
        });
      });
      if (error instanceof MailDeliveryError) {
        this.logger.warn({
          requestId: client?.requestId,
          msg: `The ${purpose} email to ${user.id} was not sent (${error.reason})`,
        });
        throw new AppException('EMAIL_SERVICE_ERROR');
      }
      throw error;
    }
    return token;
  }

  /**
   * Why a verification or reset link was refused. A verification link of an account whose
   * address is verified by now says that, whatever became of the link: it is all its owner needs.
   */
  async refusedLink(
    manager: EntityManager,
    refusal: TokenRefusal | null,
    purpose: 'email_verification' | 'password_reset',
  ): Promise<AppException> {
    const kind = purpose === 'email_verification' ? 'verification' : 'reset';
    if (!refusal) return invalidLink(kind);
    if (purpose === 'email_verification') {
      const owner = await this.users.findIn(manager, refusal.userId);
      if (owner?.emailVerified) return invalidLink(kind, 'verified');
    }
    return invalidLink(kind, refusal.reason);
  }
}
