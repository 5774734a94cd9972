import { Injectable } from '@nestjs/common';
import { DomainEvents } from '../events/domain-events.service';
import { AppException } from '../common/errors/app.exception';
import { ClientInfo } from '../common/http/request-context';
import { SecurityConfig } from '../config/config.sections';
import { Database } from '../database/database.service';
import { SsoRequirement } from '../auth/sso-requirement';
import { User } from '../users/user.entity';
import { DuplicateUserError, NewUser, UsersService } from '../users/users.service';
import { ApplicationUrlPolicy } from '../auth/application-url.policy';
import { RegisterDto } from './dto/register.dto';
import { PasswordHasher } from '../auth/hashing/password-hasher.service';
import { RegistrationMail, RegistrationMails } from './registration-mails.service';

export interface Registration {
  user: User;
  /** What became of the verification mail; the account exists whatever it says. */
  mail: RegistrationMail;
}

/** A new account with a password (`POST /auth/register`). */
@Injectable()
export class RegistrationService {
  private readonly hideAccounts: boolean;

  constructor(
    private readonly database: Database,
    private readonly users: UsersService,
    private readonly hasher: PasswordHasher,
    private readonly applicationUrls: ApplicationUrlPolicy,
    private readonly events: DomainEvents,
    private readonly sso: SsoRequirement,
    private readonly mails: RegistrationMails,
    security: SecurityConfig,
  ) {
    this.hideAccounts = security.accountEnumerationProtection;
  }

  /**
   * The account, its verification token and the queued verification mail are written together
   * or not at all. The mail's first attempt follows the commit; one SMTP refuses is retried on
   * MAIL_RETRY_SCHEDULE (MailQueue) while the account stands.
   *
   * With ACCOUNT_ENUMERATION_PROTECTION the answer does not depend on the address: the mail goes
   * out after the answer, and a taken email (with a free username) is answered with a user built
   * as a new one would be but never stored, while the address's owner is told by mail. Both
   * paths hash the password and try the insert, so they take about as long. A taken username is
   * still 409: usernames are shown to other people, hiding one would protect nothing.
   */
  async register(input: RegisterDto, client?: ClientInfo): Promise<Registration> {
    // An account of such a domain is made by its provider's first sign-in, never with a password.
    this.sso.refuse(input.email);
    const applicationUrl = this.applicationUrls.check(
      input.emailConfig?.applicationUrl,
      'emailConfig.applicationUrl',
    );
    const passwordHash = await this.hasher.hash(input.password);
    let created: { user: User; mailId: string | undefined };
    try {
      created = await this.database.transaction(async (manager) => {
        const user = await this.users.create(manager, { ...input, passwordHash });
        await this.events.publish(manager, {
          type: 'user.created',
          data: { user, method: 'password' },
          origin: { client },
        });
        const mailId = await this.mails.queueVerification(manager, user, applicationUrl, client);
        return { user, mailId };
      });
    } catch (error) {
      if (!(error instanceof DuplicateUserError)) throw error;
      if (this.hideAccounts && error.conflict === 'email' && !error.usernameTaken) {
        return this.answerAsNew({ ...input, passwordHash }, client);
      }
      const field = error.conflict === 'email' && !this.hideAccounts ? 'email' : 'username';
      const message =
        field === 'email'
          ? 'An account with this email already exists'
          : 'This username is already taken';
      // The field in `details`, as for invalid input: a form marks it without reading `message`.
      throw new AppException('REGISTRATION_FAILED', { message, details: [{ field, message }] });
    }
    const { user, mailId } = created;
    if (mailId) await this.mails.firstAttempt(mailId, user, client, this.hideAccounts);
    // Capped or not alike under ACCOUNT_ENUMERATION_PROTECTION: the answer tells nothing.
    return { user, mail: mailId || this.hideAccounts ? 'queued' : 'capped' };
  }

  /**
   * A taken email under ACCOUNT_ENUMERATION_PROTECTION: the answer a new account would get (a
   * fresh random id, as real ones have, that no account will ever have been given), and after
   * it a notice to the address, counted as the verification mail a new account would take.
   */
  private answerAsNew(input: NewUser, client: ClientInfo | undefined): Registration {
    const user = this.users.build(input);
    this.mails.attemptNoticeLater(input, client);
    return { user, mail: 'queued' };
  }
}
