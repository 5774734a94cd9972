import { Injectable } from '@nestjs/common';
import { AuditTrail } from '../audit/audit-trail.service';
import { AppException } from '../common/errors/app.exception';
import { ClientInfo } from '../common/http/request-context';
import { Database } from '../database/database.service';
import { IdentitiesService } from '../identities/identities.service';
import { UserIdentity } from '../identities/user-identity.entity';
import { PasskeysService } from '../passkeys/passkeys.service';
import { hasPassword } from '../users/user.entity';
import { UsersService } from '../users/users.service';

/** The signed-in user's linked identities: listed, and unlinked while another way in remains. */
@Injectable()
export class IdentityLinks {
  constructor(
    private readonly identities: IdentitiesService,
    private readonly passkeys: PasskeysService,
    private readonly users: UsersService,
    private readonly database: Database,
    private readonly audit: AuditTrail,
  ) {}

  list(userId: string): Promise<UserIdentity[]> {
    return this.identities.list(userId);
  }

  /**
   * 404 IDENTITY_NOT_FOUND when none of this provider is linked; 409 LAST_SIGN_IN_METHOD when it
   * is the account's last way in (no password, no passkey, no other identity). Passkeys are
   * locked first, then identities, the order a passkey's removal takes, so two removals of the
   * last two ways in run one after the other.
   */
  async unlink(userId: string, provider: string, client: ClientInfo): Promise<void> {
    await this.database.transaction(async (manager) => {
      const passkeys = await this.passkeys.lockedCount(manager, userId);
      const linked = await this.identities.lockedOf(manager, userId);
      if (!linked.some((identity) => identity.provider === provider)) {
        throw new AppException('IDENTITY_NOT_FOUND');
      }
      const passwordHash = await this.users.passwordHashShared(manager, userId);
      const others = linked.length - 1 + passkeys;
      if (others === 0 && !hasPassword({ passwordHash: passwordHash ?? null })) {
        throw new AppException('LAST_SIGN_IN_METHOD');
      }
      await this.identities.unlink(manager, userId, provider);
      await this.audit.record(manager, 'identity_unlinked', userId, client);
    });
  }
}
