import { Injectable } from '@nestjs/common';
import { DomainEvents } from '../events/domain-events.service';
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
    private readonly events: DomainEvents,
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
      const ended = await this.sessions.endAll(user.id, manager);
      // An email change asked for with that password would move the account to its setter's
      // address once confirmed there: it goes with the password, as after a reset.
      await this.tokens.retireOlder(manager, user.id, 'email_change');
      const verified = await this.users.markEmailVerified(manager, user.id);
      const origin = { client };
      if (ended.length > 0) {
        await this.events.publish(manager, {
          type: 'session.revoked',
          data: {
            userId: user.id,
            sessions: ended.map((id) => ({ id })),
            reason: 'password_changed',
          },
          origin,
        });
      }
      // As a reset is: the password changed (removed), and the sessions with it.
      await this.events.publish(manager, {
        type: 'user.password_changed',
        data: { user: verified, how: 'removed' },
        origin,
      });
      await this.events.publish(manager, {
        type: 'user.email_verified',
        data: { user: verified },
        origin,
      });
      return verified;
    });
  }
}
