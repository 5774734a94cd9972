import { Injectable } from '@nestjs/common';
import { DomainEvents } from '../events/domain-events.service';
import { AppException } from '../common/errors/app.exception';
import { ClientInfo } from '../common/http/request-context';
import { Database } from '../database/database.service';
import { SignInMethodRegistry } from '../auth/sign-in-methods.registry';
import { LinkedIdentitiesService } from '../linked-identities/linked-identities.service';
import { UserIdentity } from '../linked-identities/user-identity.entity';
import { UsersService } from '../users/users.service';

/** The signed-in user's linked identities: listed, and unlinked while another way in remains. */
@Injectable()
export class IdentityLinks {
  constructor(
    private readonly identities: LinkedIdentitiesService,
    private readonly waysIn: SignInMethodRegistry,
    private readonly database: Database,
    private readonly events: DomainEvents,
    private readonly users: UsersService,
  ) {}

  list(userId: string): Promise<UserIdentity[]> {
    return this.identities.list(userId);
  }

  /**
   * 404 IDENTITY_NOT_FOUND when none of this provider is linked; 409 LAST_SIGN_IN_METHOD when it
   * is the account's last way in (no password, no passkey, no other identity: what the ways in
   * registered). Every way in's rows are locked first, in the registry's order, as a passkey's
   * removal locks them, so two removals of the last two ways in run one after the other.
   */
  async unlink(userId: string, provider: string, client: ClientInfo): Promise<void> {
    await this.database.transaction(async (manager) => {
      const held = await this.waysIn.lockHeld(manager, userId);
      const linked = await this.identities.lockedOf(manager, userId);
      if (!linked.some((identity) => identity.provider === provider)) {
        throw new AppException('IDENTITY_NOT_FOUND');
      }
      held.refuseRemoving();
      const identity = linked.find((held) => held.provider === provider)!;
      await this.identities.unlink(manager, userId, provider);
      await this.events.publish(manager, {
        type: 'identity.unlinked',
        data: {
          user: await this.users.requireIn(manager, userId),
          identity: { id: identity.id, provider },
        },
        origin: { client },
      });
    });
  }
}
