import { Injectable } from '@nestjs/common';
import { DomainEvents } from '../events/domain-events.service';
import { ClientInfo } from '../common/http/request-context';
import { Database } from '../database/database.service';
import { LinkedIdentitiesService } from '../linked-identities/linked-identities.service';
import { SecondFactorService } from '../second-factor/second-factor.service';
import { OrganizationsService } from '../organizations/organizations.service';
import { PasskeysService } from '../passkeys/passkeys.service';
import { SessionsService } from '../sessions/sessions.service';
import { VerificationTokensService } from '../tokens/verification-tokens.service';
import { UsersService } from '../users/users.service';

/**
 * Deletes an account, by its owner (`DELETE /users/me`) or by an administrator: the user row, its
 * refresh sessions, second factors, passkeys, linked identities and emailed tokens, in one transaction, so nothing half-deleted stays.
 * The audit trail keeps every event (it has no foreign key to users) and gains
 * `account_deleted`. Once committed, the user's generation is bumped before the answer, so a
 * live access token is refused by the next check on every instance; the email and username
 * are free for a new registration.
 */
@Injectable()
export class AccountRemoval {
  constructor(
    private readonly database: Database,
    private readonly users: UsersService,
    private readonly sessions: SessionsService,
    private readonly mfa: SecondFactorService,
    private readonly passkeys: PasskeysService,
    private readonly identities: LinkedIdentitiesService,
    private readonly verificationTokens: VerificationTokensService,
    private readonly events: DomainEvents,
    private readonly organizations: OrganizationsService,
  ) {}

  /** False when no account has this id (nothing changed). `actorId`: the administrator, if any. */
  remove(userId: string, client: ClientInfo, actorId: string | null = null): Promise<boolean> {
    return this.database.transaction(async (manager) => {
      // Sessions before the user row, as every revocation does, so the two never deadlock; a
      // login that commits a session meanwhile waits on the row and goes with it (cascade).
      const user = await this.users.findIn(manager, userId);
      if (!user) return false;
      const ended = await this.sessions.deleteAllOf(manager, userId);
      await this.mfa.removeAll(manager, userId);
      await this.passkeys.removeAll(manager, userId);
      // Its sign-ins in progress at providers go with the row (ON DELETE CASCADE): minutes-lived.
      await this.identities.removeAll(manager, userId);
      await this.verificationTokens.deleteAllOf(manager, userId);
      // Its memberships end; an organization it was the last owner of passes to its oldest
      // admin, or goes when it has none (OrganizationsService.removeUser).
      await this.organizations.removeUser(manager, userId);
      if (!(await this.users.delete(manager, userId))) return false;
      const origin = { client, actorId };
      if (ended.length > 0) {
        await this.events.publish(manager, {
          type: 'session.revoked',
          data: { userId, sessions: ended.map((id) => ({ id })), reason: 'account_deleted' },
          origin,
        });
      }
      await this.events.publish(manager, { type: 'user.deleted', data: { user }, origin });
      return true;
    });
  }
}
