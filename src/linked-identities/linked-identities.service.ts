import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { randomBytes } from 'node:crypto';
import { EntityManager, Repository } from 'typeorm';
import { Database } from '../database/database.service';
import { isUniqueViolation } from '../database/database-errors';
import { UserIdentity } from './user-identity.entity';

/** A provider's subject is already linked (to this user or another), or the user has one there. */
export class IdentityTaken extends Error {
  constructor() {
    super('identity already linked');
  }
}

export interface NewIdentity {
  userId: string;
  provider: string;
  subject: string;
  email: string | null;
}

/**
 * The identities linked to accounts: the one service that reads and writes their table. Who may
 * link or unlink is decided by the callers (a provider's round trip, a signed-in owner).
 */
@Injectable()
export class LinkedIdentitiesService {
  constructor(
    @InjectRepository(UserIdentity) private readonly identities: Repository<UserIdentity>,
    private readonly database: Database,
  ) {}

  /** Oldest first. */
  list(userId: string): Promise<UserIdentity[]> {
    return this.database.run((manager) =>
      manager
        .withRepository(this.identities)
        .find({ where: { userId }, order: { createdAt: 'ASC', id: 'ASC' } }),
    );
  }

  findBySubject(provider: string, subject: string): Promise<UserIdentity | null> {
    return this.database.run((manager) =>
      manager.withRepository(this.identities).findOneBy({ provider, subject }),
    );
  }

  /** The user's identities, locked for the rest of the caller's transaction. */
  lockedOf(manager: EntityManager, userId: string): Promise<UserIdentity[]> {
    return manager
      .withRepository(this.identities)
      .find({ where: { userId }, lock: this.database.rowLock });
  }

  /** The unique indexes decide races: of two links of one subject, one wins. */
  async link(manager: EntityManager, identity: NewIdentity): Promise<UserIdentity> {
    const row = Object.assign(new UserIdentity(), {
      ...identity,
      id: `idn_${randomBytes(12).toString('hex')}`,
      createdAt: new Date(),
    });
    try {
      await manager.withRepository(this.identities).insert(row);
      return row;
    } catch (error) {
      if (isUniqueViolation(error)) throw new IdentityTaken();
      throw error;
    }
  }

  /**
   * Every identity of the user goes (an account's removal, before the user row; the first proof
   * of its mailbox); how many went.
   */
  async removeAll(manager: EntityManager, userId: string): Promise<number> {
    const { affected } = await manager.withRepository(this.identities).delete({ userId });
    return affected ?? 0;
  }

  async unlink(manager: EntityManager, userId: string, provider: string): Promise<boolean> {
    const result = await manager.withRepository(this.identities).delete({ userId, provider });
    return (result.affected ?? 0) > 0;
  }
}
