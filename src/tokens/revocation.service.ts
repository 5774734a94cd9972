import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, FindOperator, In, IsNull, MoreThan, Not, Repository } from 'typeorm';
import { Database } from '../database/database.service';
import { UsersService } from '../users/users.service';
import { RefreshSession } from './refresh-session.entity';

/**
 * Ends sessions: one family on refresh-token theft or at the user's request, the user's others,
 * or everything a user holds.
 */
@Injectable()
export class RevocationService {
  constructor(
    @InjectRepository(RefreshSession) private readonly sessions: Repository<RefreshSession>,
    private readonly database: Database,
    private readonly users: UsersService,
  ) {}

  /** Logout and password reset: every refresh and access token of the user, on every device. */
  revokeEverything(userId: string, manager?: EntityManager): Promise<void> {
    const work = async (em: EntityManager) => {
      // Sessions before the user row, in every revocation, so two of them never deadlock.
      await em
        .withRepository(this.sessions)
        .update({ userId, revokedAt: IsNull() }, { revokedAt: new Date() });
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
    await manager
      .withRepository(this.sessions)
      .update({ familyId, revokedAt: IsNull() }, { revokedAt: new Date() });
    await this.users.revokeAccessTokens(manager, userId);
  }

  /**
   * The user ends one of their live sessions: its refresh tokens are revoked, and its access
   * tokens (`sid`) are refused by every instance's next check once the user's generation has
   * moved after the commit. The user's token version stays: their other sessions' access tokens
   * keep working. False when the user has no such live session (another user's, unknown, ended,
   * expired): nothing changes then.
   */
  async endSession(manager: EntityManager, userId: string, familyId: string): Promise<boolean> {
    const ended = await this.endFamilies(manager, userId, { familyId });
    return ended.length > 0;
  }

  /** Every live session of the user but `keepFamilyId`; returns the ids of those ended. */
  endOtherSessions(
    manager: EntityManager,
    userId: string,
    keepFamilyId: string,
  ): Promise<string[]> {
    return this.endFamilies(manager, userId, { familyId: Not(keepFamilyId) });
  }

  private async endFamilies(
    manager: EntityManager,
    userId: string,
    which: { familyId: string | FindOperator<string> },
  ): Promise<string[]> {
    // Each live session's current token, held (MySQL) so a rotation racing this waits for it,
    // then finds its token revoked.
    const current = await manager.withRepository(this.sessions).find({
      select: { id: true, familyId: true },
      where: {
        userId,
        ...which,
        revokedAt: IsNull(),
        rotatedAt: IsNull(),
        expiresAt: MoreThan(new Date()),
      },
      lock: this.database.rowLock,
    });
    const families = [...new Set(current.map((row) => row.familyId))];
    if (families.length === 0) return [];
    await manager
      .withRepository(this.sessions)
      .update({ userId, familyId: In(families), revokedAt: IsNull() }, { revokedAt: new Date() });
    this.users.changed(manager, userId);
    return families;
  }

  /** An account's removal: its sessions' rows go, before the user row (the same lock order). */
  async deleteAllOf(manager: EntityManager, userId: string): Promise<void> {
    await manager.withRepository(this.sessions).delete({ userId });
  }
}
