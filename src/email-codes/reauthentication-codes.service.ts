import { Injectable, Logger } from '@nestjs/common';
import { DomainEvents } from '../events/domain-events.service';
import { AppException } from '../common/errors/app.exception';
import { ClientInfo } from '../common/http/request-context';
import { EmailCodeConfig, FederationConfig } from '../config/config.sections';
import { requiredProviderFor } from '../config/sso-domains';
import { isForeignKeyViolation } from '../database/database-errors';
import { EmailCodes } from './email-codes.service';
import { MailRecipientCap } from '../mail/mail-recipient-cap.service';
import { MailDeliveryError, MailService } from '../mail/mail.service';
import { User } from '../users/user.entity';
import { LoginBackoff } from '../auth/login-backoff.service';

/**
 * A step-up by a code mailed to the account's stored address: the proof every account has,
 * passwordless ones included. The code is the sign-in code's kind (six digits, EMAIL_CODE_TTL,
 * EMAIL_CODE_ATTEMPTS, one live at a time) but of its own purpose, with no link, and never
 * accepted as a sign-in (nor a sign-in's code here). Mails count with the sign-in codes' in the
 * address's cap; wrong codes count towards the account's login slow-down. Available whatever
 * EMAIL_CODE_LOGIN says (it opens no session, and the reset mail already trusts the mailbox), but
 * not to an address whose domain must sign in through its provider (`sso_required`).
 */
@Injectable()
export class ReauthenticationCodes {
  private readonly logger = new Logger(ReauthenticationCodes.name);

  constructor(
    private readonly codes: EmailCodes,
    private readonly mail: MailService,
    private readonly cap: MailRecipientCap,
    private readonly backoff: LoginBackoff,
    private readonly events: DomainEvents,
    private readonly config: EmailCodeConfig,
    private readonly federation: FederationConfig,
  ) {}

  /** Whether the account may step up with a mailed code. */
  availableTo(user: Pick<User, 'email'>): boolean {
    return requiredProviderFor(this.federation.providers, user.email) === undefined;
  }

  /**
   * Mails a new code (the older ones of a step-up stop working once it is sent). 403
   * SSO_REQUIRED for an address of a domain that signs in only through its provider; 429 when
   * the address has had its code mails for now; 503 when the mail could not be sent (the code
   * is deleted). Answers the code's lifetime in seconds.
   */
  async send(user: User, client: ClientInfo): Promise<number> {
    this.refuseSso(user);
    await this.cap.take('email_code', user.email, 'reauthentication_code');
    const issued = await this.codes.issue(user.id, 'reauthentication').catch((error: unknown) => {
      // Deleted between its token check and this insert: the token names no account any more.
      if (isForeignKeyViolation(error)) throw new AppException('INVALID_TOKEN');
      throw error;
    });
    try {
      await this.mail.sendReauthenticationCode({
        to: user.email,
        username: user.username,
        code: issued.code,
        ttl: this.config.ttl,
      });
    } catch (error) {
      await this.codes.discard(issued.token).catch(() => {
        // Never sent, so nobody holds it; it expires unused.
      });
      if (!(error instanceof MailDeliveryError)) throw error;
      this.logger.warn({
        requestId: client.requestId,
        msg: `The step-up code email to ${user.id} was not sent (${error.reason})`,
      });
      throw new AppException('EMAIL_SERVICE_ERROR');
    }
    await this.codes.retireOthers(user.id, issued.token);
    await this.events.signalAlone({
      type: 'email_code.requested',
      userId: user.id,
      origin: { client },
    });
    return this.config.ttl;
  }

  /**
   * 429 while the account waits; 401 INVALID_MFA_CODE for a wrong, used, expired or dead code
   * (as a wrong code of the authenticator app is answered: a code typed by a signed-in person,
   * which a client must not take for an expired session).
   */
  async confirm(user: User, code: string, client: ClientInfo): Promise<void> {
    this.refuseSso(user);
    const wait = await this.backoff.waiting(user.email);
    if (wait > 0) {
      throw new AppException('RATE_LIMITED', {
        message: 'Too many wrong codes or passwords for this account, try again later',
        retryAfter: wait,
      });
    }
    if ((await this.codes.useCode(user.id, code, 'reauthentication')) === 'used') return;
    await this.backoff.failed(user.email);
    await this.events.signalAlone({
      type: 'email_code.failed',
      userId: user.id,
      origin: { client },
    });
    // Answered as a wrong code of the authenticator app is.
    throw new AppException('INVALID_MFA_CODE');
  }

  private refuseSso(user: User): void {
    if (!this.availableTo(user)) throw new AppException('SSO_REQUIRED');
  }
}
