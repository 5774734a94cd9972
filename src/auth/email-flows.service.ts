import { Injectable, Logger } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AuditTrail } from '../audit/audit-trail.service';
import { AppException } from '../common/errors/app.exception';
import { ClientInfo } from '../common/http/request-context';
import { IDENTITY_PASSWORD_MESSAGE, matchesIdentity } from '../common/validation/password-rules';
import { MailConfig, SecurityConfig } from '../config/config.sections';
import { Database } from '../database/database.service';
import { isForeignKeyViolation } from '../database/database-errors';
import { SsoRequirement } from './sso-requirement';
import { MailRecipientCap } from '../mail/mail-recipient-cap.service';
import { MailDeliveryError, MailService, TokenMail } from '../mail/mail.service';
import { SessionsService } from '../sessions/sessions.service';
import { invalidLink } from '../tokens/invalid-link';
import { TokenPurpose } from '../tokens/verification-token.entity';
import { TokenRefusal, VerificationTokensService } from '../tokens/verification-tokens.service';
import { User } from '../users/user.entity';
import { UsersService } from '../users/users.service';
import { AfterAnswer } from './after-answer.service';
import { ApplicationUrlPolicy } from './application-url.policy';
import { MailboxProof } from './mailbox-proof.service';
import { PasswordHasher } from './hashing/password-hasher.service';
import { PasswordChangedNotice } from './password-changed-notice.service';

/**
 * What a request for a mail did: sent it, or (ACCOUNT_ENUMERATION_PROTECTION) took it to be sent
 * after the answer, if an account needs it.
 */
export type MailRequest = 'sent' | 'queued';

/** Email verification and password reset: emailed single-use tokens and what they unlock. */
@Injectable()
export class EmailFlowsService {
  private readonly logger = new Logger(EmailFlowsService.name);
  private readonly hideAccounts: boolean;

  constructor(
    private readonly database: Database,
    private readonly users: UsersService,
    private readonly tokens: VerificationTokensService,
    private readonly sessions: SessionsService,
    private readonly hasher: PasswordHasher,
    private readonly mail: MailService,
    private readonly cap: MailRecipientCap,
    private readonly mailConfig: MailConfig,
    private readonly applicationUrls: ApplicationUrlPolicy,
    private readonly audit: AuditTrail,
    private readonly passwordChanged: PasswordChangedNotice,
    private readonly afterAnswer: AfterAnswer,
    private readonly mailboxProof: MailboxProof,
    private readonly sso: SsoRequirement,
    security: SecurityConfig,
  ) {
    this.hideAccounts = security.accountEnumerationProtection;
  }

  /** Returns the verified user and, when one was given and is allowed, where the app goes next. */
  async verifyEmail(
    token: string,
    applicationUrl?: string,
    client?: ClientInfo,
  ): Promise<{ user: User; redirectUrl?: string }> {
    const redirectUrl = this.applicationUrls.check(applicationUrl, 'applicationUrl');
    const user = await this.database.transaction(async (manager) => {
      const { row, refusal } = await this.tokens.consume(manager, token, 'email_verification');
      if (!row) throw await this.refusedLink(manager, refusal, 'email_verification');
      const userId = row.userId;
      const before = await this.users.requireIn(manager, userId);
      await this.mailboxProof.proven(manager, userId, before.emailVerified, client);
      await this.audit.record(manager, 'email_verified', userId, client);
      return this.users.markEmailVerified(manager, userId);
    });
    return { user, redirectUrl };
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
          await this.mailToken(user, 'email_verification', url, client);
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
    await this.mailToken(user, 'email_verification', url, client);
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
        if (user) await this.mailPasswordReset(user, url, client, null);
      });
      return 'queued';
    }
    const user = await this.users.findByEmail(email);
    if (!user) throw new AppException('USER_NOT_FOUND');
    await this.cap.take('password_reset', user.email);
    await this.mailPasswordReset(user, url, client, null);
    return 'sent';
  }

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

  private async mailPasswordReset(
    user: User,
    url: string | undefined,
    client: ClientInfo | undefined,
    actorId: string | null,
  ): Promise<void> {
    const token = await this.mailToken(user, 'password_reset', url, client);
    await this.database.transaction(async (manager) => {
      await this.tokens.retireOlder(manager, user.id, 'password_reset', token);
      await this.audit.record(manager, 'password_reset_requested', user.id, client, { actorId });
    });
  }

  /**
   * Sets the new password and ends every session of the user, in one transaction. Owning the
   * inbox is proof enough of the address, so an unverified email becomes verified, and the
   * identities linked before that proof are unlinked (MailboxProof). A password
   * that is the account's own email or username is refused once the token names the account;
   * the refusal rolls the transaction back, so the link still works for a better password.
   * The owner is then told by mail, as after a change with the current password.
   */
  async resetPassword(token: string, newPassword: string, client?: ClientInfo): Promise<void> {
    const passwordHash = await this.hasher.hash(newPassword);
    const user = await this.database.transaction(async (manager) => {
      const { row, refusal } = await this.tokens.consume(manager, token, 'password_reset');
      if (!row) throw await this.refusedLink(manager, refusal, 'password_reset');
      const userId = row.userId;
      const owner = await this.users.findIn(manager, userId);
      // A link mailed before the domain became SSO-only: refused, and left unused (rollback).
      if (owner) this.sso.refuse(owner.email);
      if (owner && matchesIdentity(newPassword, [owner.email, owner.username])) {
        throw new AppException('VALIDATION_ERROR', {
          details: [{ field: 'newPassword', message: IDENTITY_PASSWORD_MESSAGE('newPassword') }],
        });
      }
      // The identities linked before this first proof go (MailboxProof): its sessions end below.
      await this.mailboxProof.proven(manager, userId, owner?.emailVerified ?? true, client);
      await this.users.setPasswordHash(manager, userId, passwordHash);
      await this.users.markEmailVerified(manager, userId);
      await this.tokens.retireOlder(manager, userId, 'password_reset');
      // An email change asked for with the old password must not outlive it: whoever knew that
      // password could otherwise move the account to their address after the owner's reset.
      await this.tokens.retireOlder(manager, userId, 'email_change');
      await this.sessions.endAll(userId, manager);
      await this.audit.record(manager, 'password_changed', userId, client);
      return this.users.requireIn(manager, userId);
    });
    // Whoever reset it holds the inbox; if that is not the owner, this is how they learn of it.
    await this.passwordChanged.send(user, client);
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
  private async refusedLink(
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
