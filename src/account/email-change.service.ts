import { Injectable, Logger } from '@nestjs/common';
import { DomainEvents } from '../events/domain-events.service';
import { ApplicationUrlPolicy } from '../auth/application-url.policy';
import { AppException } from '../common/errors/app.exception';
import { ClientInfo } from '../common/http/request-context';
import { MailConfig } from '../config/config.sections';
import { Database } from '../database/database.service';
import { isUniqueViolation } from '../database/database-errors';
import { SsoRequirement } from '../auth/sso-requirement';
import { MailRecipientCap } from '../mail/mail-recipient-cap.service';
import { MailDeliveryError, MailService } from '../mail/mail.service';
import { invalidLink } from '../tokens/invalid-link';
import { VerificationTokensService } from '../tokens/verification-tokens.service';
import { cleanEmail, normalizeEmail } from '../users/identity.normalizer';
import { User } from '../users/user.entity';
import { UsersService } from '../users/users.service';
import { ChangeConfirmation } from '../auth/change-confirmation.service';

const TAKEN = 'An account with this email already exists';

/**
 * Changing the account's email: the current password asks for it (a recent sign-in, for an
 * account without one: ChangeConfirmation), a single-use link mailed to
 * the new address completes it, and the old address is told. Until the link is used the account
 * keeps its address, so a typo in the new one locks nobody out.
 */
@Injectable()
export class EmailChangeService {
  private readonly logger = new Logger(EmailChangeService.name);

  constructor(
    private readonly database: Database,
    private readonly users: UsersService,
    private readonly confirmation: ChangeConfirmation,
    private readonly tokens: VerificationTokensService,
    private readonly mail: MailService,
    private readonly cap: MailRecipientCap,
    private readonly mailConfig: MailConfig,
    private readonly applicationUrls: ApplicationUrlPolicy,
    private readonly events: DomainEvents,
    private readonly sso: SsoRequirement,
  ) {}

  /**
   * Mails the link to the new address; once it is sent, the user's earlier change links stop
   * working. An address another account has is 409 REGISTRATION_FAILED, as registration answers
   * it (that route already tells whether an address is taken; this one asks for a password
   * first, and wrong ones are slowed down per account). 403 SSO_REQUIRED for moving an account
   * off a domain that signs in through its provider only.
   */
  async request(
    userId: string,
    proof: { password: string | undefined; authTime: number | undefined },
    newEmail: string,
    applicationUrl: string | undefined,
    client?: ClientInfo,
  ): Promise<void> {
    const url = this.applicationUrls.check(applicationUrl, 'applicationUrl');
    const user = await this.users.findById(userId);
    if (!user) throw new AppException('INVALID_TOKEN');
    this.sso.refuseLeaving(user.email, newEmail);
    await this.confirmation.confirm(user, proof.password, proof.authTime);
    const address = cleanEmail(newEmail);
    if (address === user.email) {
      throw new AppException('VALIDATION_ERROR', {
        message: 'This is already the email address of the account',
        details: [{ field: 'newEmail', message: 'newEmail must differ from the current address' }],
      });
    }
    const holder = await this.users.findByEmail(address);
    if (holder && holder.id !== user.id) {
      throw taken();
    }

    // Capped by the address mailed, whoever asks: before anything is retired or written.
    await this.cap.take('email_change', address);
    const ttl = this.mailConfig.emailChangeTtl;
    // The new link is audited with its issue, before it is sent: a failure past this point
    // leaves no live link that was never recorded.
    const token = await this.database.transaction(async (manager) => {
      const issued = await this.tokens.issue(manager, user.id, 'email_change', ttl, address);
      await this.events.signal(manager, {
        type: 'email_change.requested',
        userId: user.id,
        origin: { client },
      });
      return issued;
    });
    try {
      await this.mail.sendEmailChangeEmail({
        to: address,
        username: user.username,
        token,
        applicationUrl: url,
        ttl,
      });
    } catch (error) {
      await this.tokens.discard(token).catch(() => {
        // Never sent, so nobody holds it; it expires unused. The mail failure is the answer.
      });
      if (!(error instanceof MailDeliveryError)) throw error;
      this.logger.warn({
        requestId: client?.requestId,
        msg: `The email-change link for ${user.id} was not sent (${error.reason})`,
      });
      throw new AppException('EMAIL_SERVICE_ERROR');
    }
    // Once it is sent, as a reset link does: a mail that failed leaves the older links working.
    await this.database.transaction((manager) =>
      this.tokens.retireOlder(manager, user.id, 'email_change', token),
    );
    // The owner hears of it while there is still time to act, not only once it is done.
    await this.notifyRequested(user, address, new Date(), client);
  }

  /**
   * Uses the token up and moves the account to its address, in one transaction: of parallel
   * confirmations with one token exactly one succeeds. The address stays verified (the link
   * proved the inbox). Links mailed to the old address (verification, reset) stop working.
   * Sessions stay: the password did not change. The old address gets a notice afterwards, with
   * a link that undoes the change, issued with the change itself (EmailChangedNotice).
   */
  async confirm(token: string, client?: ClientInfo): Promise<User> {
    return this.database
      .transaction(async (manager) => {
        const { row, refusal } = await this.tokens.consume(manager, token, 'email_change');
        if (!row?.newEmail) throw invalidLink('email-change', refusal?.reason);
        const before = await this.users.findIn(manager, row.userId);
        if (!before) throw new AppException('INVALID_TOKEN');
        // A disabled account stays as the administrator left it (and keeps the reset link an
        // administrator may have sent for its recovery). Disabling retires these links, so
        // this only settles a race with it.
        if (before.disabledAt) throw new AppException('INVALID_TOKEN');
        await this.users.update(manager, row.userId, {
          email: cleanEmail(row.newEmail),
          emailNormalized: normalizeEmail(row.newEmail),
          emailVerified: true,
          verifiedAt: new Date(),
        });
        await this.tokens.retireOlder(manager, row.userId, 'email_change');
        await this.tokens.retireOlder(manager, row.userId, 'password_reset');
        await this.tokens.retireOlder(manager, row.userId, 'email_verification');
        const after = await this.users.requireIn(manager, row.userId);
        // The old address is told, with a link that undoes it (EmailChangedNotice).
        await this.events.publish(manager, {
          type: 'user.email_changed',
          data: { user: after, previousEmail: before.email },
          origin: { client },
        });
        return after;
      })
      .catch((error: unknown) => {
        // Another account took the address after the link was sent: nothing changed, and the
        // token was not used up (the transaction rolled back).
        if (isUniqueViolation(error)) {
          throw new AppException('REGISTRATION_FAILED', { message: TAKEN });
        }
        throw error;
      });
  }

  /**
   * To the old address (`user.email`): the change asked for. It is asked for whether or not the
   * notice goes out: one that could not be sent is logged, and the answer stays the success it is.
   */
  private async notifyRequested(
    user: User,
    newEmail: string,
    at: Date,
    client: ClientInfo | undefined,
  ): Promise<void> {
    const notice = { to: user.email, username: user.username, at, ip: client?.ip, newEmail };
    try {
      await this.mail.sendEmailChangeRequestedNotice(notice);
    } catch (error) {
      this.logger.warn({
        requestId: client?.requestId,
        msg: `The email-requested notice to the old address of ${user.id} was not sent (${
          error instanceof MailDeliveryError ? error.reason : 'unknown error'
        })`,
      });
    }
  }
}

/** The field in `details`, as for invalid input: a form marks it without reading `message`. */
function taken(): AppException {
  return new AppException('REGISTRATION_FAILED', {
    message: TAKEN,
    details: [{ field: 'newEmail', message: TAKEN }],
  });
}
