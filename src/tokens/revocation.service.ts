import { Injectable } from '@nestjs/common';
import { EntityManager, IsNull } from 'typeorm';
import { Database } from '../database/database.service';
import { UsersService } from '../users/users.service';
import { RefreshSession } from './refresh-session.entity';

/** Ends sessions: one family on refresh-token theft, or everything a user holds. */
@Injectable()
export class RevocationService {
  constructor(
    private readonly database: Database,
    private readonly users: UsersService,
  ) {}

  /** Logout and password reset: every refresh and access token of the user, on every device. */
  revokeEverything(userId: string, manager?: EntityManager): Promise<void> {
    const work = async (em: EntityManager) => {
      // Sessions before the user row, in every revocation, so two of them never deadlock.
      await em.update(RefreshSession, { userId, revokedAt: IsNull() }, { revokedAt: new Date() });
      await this.users.revokeAccessTokens(em, userId);
    };
    return manager ? work(manager) : this.database.transaction(work);
  }

  /**
   * A retired refresh token came back after the grace window: someone holds a copy. The stolen
   * family dies, and so do the user's access tokens; other devices renew through their own
   * refresh tokens.
   */
  async revokeFamily(manager: EntityManager, userId: string, familyId: string): Promise<void> {
    await manager.update(
      RefreshSession,
      { familyId, revokedAt: IsNull() },
      { revokedAt: new Date() },
    );
    await this.users.revokeAccessTokens(manager, userId);
  }
}
