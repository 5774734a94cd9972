import { Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { EntityManager } from 'typeorm';
import { Database } from '../database/database.service';
import { isUniqueViolation } from '../database/database-errors';
import { cleanEmail, normalizeEmail, normalizeUsername } from './identity.normalizer';
import { USER_ROLE, User } from './user.entity';

export interface NewUser {
  email: string;
  username: string;
  passwordHash: string;
}

/** Which identity a registration collided with. */
export type Conflict = 'email' | 'username';

export class DuplicateUserError extends Error {
  constructor(readonly conflict: Conflict) {
    super(`${conflict} already registered`);
  }
}

const ID_DIGITS = 18n;

function newUserId(): string {
  const value = randomBytes(8).readBigUInt64BE() % 10n ** ID_DIGITS;
  return `user_${value.toString().padStart(Number(ID_DIGITS), '0')}`;
}

/** Users and their lookups. Knows nothing of tokens or how anyone logs in. */
@Injectable()
export class UsersService {
  constructor(private readonly database: Database) {}

  findById(id: string): Promise<User | null> {
    return this.database.run((manager) => manager.findOneBy(User, { id }));
  }

  findByEmail(email: string): Promise<User | null> {
    const emailNormalized = normalizeEmail(email);
    return this.database.run((manager) => manager.findOneBy(User, { emailNormalized }));
  }

  /**
   * Reads the user inside the caller's transaction, holding the row (MySQL) until it commits, so a
   * token signed from it cannot carry a version a concurrent logout has already retired.
   */
  lockById(manager: EntityManager, id: string): Promise<User | null> {
    return manager.findOne(User, { where: { id }, lock: this.database.rowLock });
  }

  /**
   * Inserts inside the caller's transaction. The unique indexes decide races: of two parallel
   * registrations of one email exactly one insert succeeds; the other gets DuplicateUserError.
   */
  async create(manager: EntityManager, input: NewUser): Promise<User> {
    const now = new Date();
    const user = manager.create(User, {
      id: newUserId(),
      email: cleanEmail(input.email),
      emailNormalized: normalizeEmail(input.email),
      username: input.username.trim(),
      usernameNormalized: normalizeUsername(input.username),
      passwordHash: input.passwordHash,
      role: USER_ROLE,
      emailVerified: false,
      verifiedAt: null,
      tokenVersion: 0,
      createdAt: now,
      updatedAt: now,
    });
    try {
      await manager.insert(User, user);
      return user;
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      throw new DuplicateUserError(await this.conflictOf(manager, user));
    }
  }

  /** Marks the email verified (once: a later call keeps the first `verifiedAt`). */
  async markEmailVerified(manager: EntityManager, userId: string): Promise<User> {
    const now = new Date();
    await manager.update(
      User,
      { id: userId, emailVerified: false },
      { emailVerified: true, verifiedAt: now, updatedAt: now },
    );
    return manager.findOneByOrFail(User, { id: userId });
  }

  async setPasswordHash(
    manager: EntityManager,
    userId: string,
    passwordHash: string,
  ): Promise<void> {
    await manager.update(User, { id: userId }, { passwordHash, updatedAt: new Date() });
  }

  /** Invalidates every access token issued to the user so far. */
  async revokeAccessTokens(manager: EntityManager, userId: string): Promise<void> {
    await manager
      .createQueryBuilder()
      .update(User)
      .set({ tokenVersion: () => 'token_version + 1', updatedAt: new Date() })
      .where('id = :userId', { userId })
      .execute();
  }

  private async conflictOf(manager: EntityManager, user: User): Promise<Conflict> {
    const sameEmail = await manager.existsBy(User, { emailNormalized: user.emailNormalized });
    return sameEmail ? 'email' : 'username';
  }
}
