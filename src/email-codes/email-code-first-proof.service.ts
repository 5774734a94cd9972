import { Injectable } from '@nestjs/common';
import { AuditTrail } from '../audit/audit-trail.service';
import { MailboxProof } from '../auth/mailbox-proof.service';
import { ClientInfo } from '../common/http/request-context';
import { Database } from '../database/database.service';
import { SessionsService } from '../sessions/sessions.service';
import { VerificationTokensService } from '../tokens/verification-tokens.service';
import { User } from '../users/user.entity';
import { UsersService } from '../users/users.service';

/** A sign-in code that is the first proof of its account's mailbox. */
@Injectable()
export class EmailCodeFirstProof {
  constructor(
    private readonly database: Database,
    private readonly users: UsersService,
    private readonly mailboxProof: MailboxProof,
    private readonly sessions: SessionsService,
    private readonly tokens: VerificationTokensService,
    private readonly audit: AuditTrail,
  ) {}

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
  async markVerified(user: User, client: ClientInfo): Promise<User> {
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
}
