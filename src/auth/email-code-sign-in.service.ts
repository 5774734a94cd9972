import { Injectable, Logger } from '@nestjs/common';
import { AuditTrail } from '../audit/audit-trail.service';
import { AppException } from '../common/errors/app.exception';
import { ClientInfo } from '../common/http/request-context';
import { EmailCodeConfig, SecurityConfig } from '../config/config.sections';
import { Database } from '../database/database.service';
import { isForeignKeyViolation } from '../database/database-errors';
import { EMAIL_CODE } from '../email-codes/email-code.way-in';
import { EmailCodes } from '../email-codes/email-codes.service';
import { MailRecipientCap } from '../mail/mail-recipient-cap.service';
import { MailDeliveryError, MailService } from '../mail/mail.service';
import { EmailCodeProof, Metrics } from '../metrics/metrics.service';
import { User } from '../users/user.entity';
import { SessionsService } from '../sessions/sessions.service';
import { VerificationTokensService } from '../tokens/verification-tokens.service';
import { UsersService } from '../users/users.service';
import { AfterAnswer } from './after-answer.service';
import { ApplicationUrlPolicy } from './application-url.policy';
import { AuthService, PendingSecondFactor, Session } from './auth.service';
import { MailRequest } from './email-flows.service';
import { LoginBackoff } from './login-backoff.service';
import { MailboxProof } from './mailbox-proof.service';

/** Matches no row of email_codes: user ids are `user_` and digits. */
const NO_USER_ID = 'none';

/** What comes back from the mail: the six digits with the address, or the link's token. */
export type EmailCodeProofOf = { email: string; code: string } | { token: string };

/**
 * Signing in with a one-time code by email: the first step of a login, as the password is. A
 * code (or its link) proves the mailbox, so an unverified address becomes verified (and what was
 * set before that proof, password and sessions, is undone: `markVerified`); a disabled
 * account is refused as login refuses it (403, said only to whoever holds the code); an account
 * with a second factor goes on to its second step. Wrong codes count towards the account's
 * login slow-down, with wrong passwords, and kill their code after EMAIL_CODE_ATTEMPTS.
 */
@Injectable()
export class EmailCodeSignIn {
  private readonly logger = new Logger(EmailCodeSignIn.name);
  private readonly hideAccounts: boolean;

  constructor(
    private readonly auth: AuthService,
    private readonly codes: EmailCodes,
    private readonly users: UsersService,
    private readonly database: Database,
    private readonly mail: MailService,
    private readonly cap: MailRecipientCap,
    private readonly applicationUrls: ApplicationUrlPolicy,
    private readonly backoff: LoginBackoff,
    private readonly audit: AuditTrail,
    private readonly metrics: Metrics,
    private readonly afterAnswer: AfterAnswer,
    private readonly sessions: SessionsService,
    private readonly tokens: VerificationTokensService,
    private readonly config: EmailCodeConfig,
    private readonly mailboxProof: MailboxProof,
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
    this.auth.refuseSsoDomain(email);
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
   * The code (with the address it was mailed to) or the link's token: login's answer, or its
   * second step. 401 LOGIN_FAILED for a wrong, used, expired or dead one; 429 while the account
   * waits (a typed code only: a link cannot be guessed, so it is no guess to slow down).
   */
  async verify(
    proof: EmailCodeProofOf,
    client: ClientInfo,
  ): Promise<Session | PendingSecondFactor> {
    const kind: EmailCodeProof = 'token' in proof ? 'link' : 'code';
    if ('email' in proof) this.auth.refuseSsoDomain(proof.email);
    const user =
      'token' in proof ? await this.byLink(proof.token) : await this.byCode(proof, client);
    if (!user) {
      this.metrics.emailCode(kind, 'failed');
      if ('token' in proof) await this.audit.recordAlone('email_code_failed', null, client);
      throw new AppException('LOGIN_FAILED', {
        message: 'The code is wrong, expired or already used',
      });
    }
    this.metrics.emailCode(kind, 'ok');
    // A link names no address: the account's own decides (its domain may have become SSO-only
    // after the code was mailed).
    this.auth.refuseSsoDomain(user.email);
    if (user.disabledAt) {
      await this.audit.recordAlone('login_failed', user.id, client);
      throw new AppException('ACCOUNT_DISABLED');
    }
    const proven = user.emailVerified ? user : await this.markVerified(user, client);
    return this.auth.firstStepPassed(
      proven,
      { method: EMAIL_CODE },
      client,
      'email' in proof ? proof.email : undefined,
    );
  }

  private async byLink(token: string): Promise<User | null> {
    const userId = await this.codes.useLink(token);
    return userId === null ? null : this.users.findById(userId);
  }

  /** Counted as a wrong password is, whether or not an account (or a live code) is there. */
  private async byCode(
    proof: { email: string; code: string },
    client: ClientInfo,
  ): Promise<User | null> {
    const wait = await this.backoff.waiting(proof.email);
    if (wait > 0) {
      throw new AppException('RATE_LIMITED', {
        message: 'Too many failed sign-ins for this account, try again later',
        retryAfter: wait,
      });
    }
    const user = await this.users.findByEmail(proof.email);
    // An unknown address goes through the same locked lookup, under an id no user has (user ids
    // start `user_`): skipping it would answer measurably sooner, telling a guesser which
    // addresses have accounts even with ACCOUNT_ENUMERATION_PROTECTION. Never an absent id:
    // TypeORM drops an undefined condition and would match any user's code.
    const outcome = await this.codes.useCode(user?.id ?? NO_USER_ID, proof.code);
    if (user && outcome === 'used') return user;
    await this.backoff.failed(proof.email);
    await this.audit.recordAlone('email_code_failed', user?.id ?? null, client);
    return null;
  }

  /**
   * Holding the mailbox proves the address. When this is the first proof, whatever was set on
   * the account before it may be someone else's: anyone can register an address they do not
   * hold, set a password and stay signed in (login does not need a verified email). So every
   * other session ends, a pending email change dies and that password is removed: the account
   * has none (as one a provider made), confirms its changes with a recent sign-in, and its owner
   * sets a password through the reset mail. One transaction, so the account is never verified
   * with the earlier password, sessions or change still standing. It runs after the code's own
   * (short) transaction; should it not happen, the code is spent and the account stays
   * unverified, nothing half-done.
   */
  private async markVerified(user: User, client: ClientInfo): Promise<User> {
    return this.database.transaction(async (manager) => {
      const current = await this.users.requireIn(manager, user.id);
      // Proven in the meantime (a verification link): nothing here is unproven any more.
      if (current.emailVerified) return current;
      // Identities linked before this proof go too: one may be whoever claimed the address.
      await this.mailboxProof.proven(manager, user.id, false, client);
      await this.users.setPasswordHash(manager, user.id, null);
      await this.sessions.endAll(user.id, manager);
      // An email change asked for with that password would move the account to its setter's
      // address once confirmed there: it goes with the password, as after a reset.
      await this.tokens.retireOlder(manager, user.id, 'email_change');
      // In the trail as a reset is: the password changed, and the sessions with it.
      await this.audit.record(manager, 'password_changed', user.id, client);
      await this.audit.record(manager, 'email_verified', user.id, client);
      return this.users.markEmailVerified(manager, user.id);
    });
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
    await this.audit.recordAlone('email_code_requested', user.id, client);
  }
}
