import { Injectable } from '@nestjs/common';
import { DomainEvents } from '../events/domain-events.service';
import { AppException } from '../common/errors/app.exception';
import { ClientInfo } from '../common/http/request-context';
import { IDENTITY_PASSWORD_MESSAGE, matchesIdentity } from '../common/validation/password-rules';
import { Database } from '../database/database.service';
import { PasswordHasher } from '../auth/hashing/password-hasher.service';
import { MailboxProof } from '../auth/mailbox-proof.service';
import { SsoRequirement } from '../auth/sso-requirement';
import { SessionsService } from '../sessions/sessions.service';
import { VerificationTokensService } from '../tokens/verification-tokens.service';
import { UsersService } from '../users/users.service';
import { EmailLinksService } from './email-links.service';

/** The reset link followed with a new password. */
@Injectable()
export class PasswordReset {
  constructor(
    private readonly database: Database,
    private readonly users: UsersService,
    private readonly tokens: VerificationTokensService,
    private readonly sessions: SessionsService,
    private readonly hasher: PasswordHasher,
    private readonly events: DomainEvents,
    private readonly mailboxProof: MailboxProof,
    private readonly sso: SsoRequirement,
    private readonly flows: EmailLinksService,
  ) {}

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
    await this.database.transaction(async (manager) => {
      const { row, refusal } = await this.tokens.consume(manager, token, 'password_reset');
      if (!row) throw await this.flows.refusedLink(manager, refusal, 'password_reset');
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
      const ended = await this.sessions.endAll(userId, manager);
      const user = await this.users.requireIn(manager, userId);
      if (ended.length > 0) {
        await this.events.publish(manager, {
          type: 'session.revoked',
          data: { userId, sessions: ended.map((id) => ({ id })), reason: 'password_changed' },
          origin: { client },
        });
      }
      // Whoever reset it holds the inbox; if that is not the owner, the notice tells them.
      await this.events.publish(manager, {
        type: 'user.password_changed',
        data: { user, how: 'reset' },
        origin: { client },
      });
    });
  }
}
