import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { SecurityConfig } from '../config/config.sections';
import { randomBytes } from 'node:crypto';
import { EntityManager, In, Repository } from 'typeorm';
import { Database } from '../database/database.service';
import { isUniqueViolation } from '../database/database-errors';
import { RedisService } from '../redis/redis.service';
import { cleanEmail, normalizeEmail, normalizeUsername } from './identity.normalizer';
import { UserCache, UserWithSessions } from './user-cache';
import { UserGenerations } from './user-generations.service';
import { USER_ROLE, User } from './user.entity';

export interface NewUser {
  email: string;
  username: string;
  /** Null: an account an identity provider created, signed into only through it (or a passkey). */
  passwordHash: string | null;
}

/**
 * Whether `sessionId` is a live session of `userId`, answered by the sessions' owner inside the
 * unit of work `manager` belongs to: this module reads only its own table.
 */
export type SessionCheck = (
  manager: EntityManager,
  userId: string,
  sessionId: string,
) => Promise<boolean>;

/** Which identity a registration collided with. */
export type Conflict = 'email' | 'username';

export class DuplicateUserError extends Error {
  constructor(
    /** The email when it is taken, else the username. */
    readonly conflict: Conflict,
    /** Whether the username is taken too, whatever `conflict` says. */
    readonly usernameTaken = conflict === 'username',
  ) {
    super(`${conflict} already registered`);
  }
}

const ID_DIGITS = 18n;

function newUserId(): string {
  const value = randomBytes(8).readBigUInt64BE() % 10n ** ID_DIGITS;
  return `user_${value.toString().padStart(Number(ID_DIGITS), '0')}`;
}

/**
 * Users and their lookups: the one service that reads and writes the users table (UserDirectory
 * builds on it). Knows nothing of tokens or how anyone logs in. The `…(manager, …)` forms run
 * inside the caller's unit of work (`Database.run` or `transaction`), so a change and what goes
 * with it (audit event, revocations) commit together.
 */
@Injectable()
export class UsersService {
  private readonly cache: UserCache;

  constructor(
    @InjectRepository(User) private readonly users: Repository<User>,
    private readonly database: Database,
    security: SecurityConfig,
    private readonly generations: UserGenerations,
    redis: RedisService,
  ) {
    this.cache = new UserCache(security.userCacheTtl * 1000);
    // Whatever was cached before the outage may have been changed on another instance meanwhile.
    redis.onRecovery(() => this.cache.clear());
  }

  findById(id: string): Promise<User | null> {
    return this.users.findOneBy({ id });
  }

  findIn(manager: EntityManager, id: string): Promise<User | null> {
    return manager.withRepository(this.users).findOneBy({ id });
  }

  /** The users of these ids that exist, in no particular order (a page of members). */
  findManyIn(manager: EntityManager, ids: readonly string[]): Promise<User[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return manager.withRepository(this.users).findBy({ id: In([...ids]) });
  }

  /** For a caller that knows the user exists (its row is held by the caller's transaction). */
  requireIn(manager: EntityManager, id: string): Promise<User> {
    return manager.withRepository(this.users).findOneByOrFail({ id });
  }

  existsIn(manager: EntityManager, id: string): Promise<boolean> {
    return manager.withRepository(this.users).existsBy({ id });
  }

  /**
   * The user, its row held until the caller's transaction ends (MySQL), so two changes to one
   * account act one after the other. Callers that also revoke sessions must revoke them first:
   * sessions are locked before the user row everywhere.
   */
  findForUpdate(manager: EntityManager, id: string): Promise<User | null> {
    return manager
      .withRepository(this.users)
      .findOne({ where: { id }, lock: this.database.rowLock });
  }

  /** Changes a user's own fields (not its identity keys' uniqueness rules: see UserDirectory). */
  async update(manager: EntityManager, id: string, fields: Partial<User>): Promise<void> {
    this.changed(manager, id);
    await manager.withRepository(this.users).update({ id }, { ...fields, updatedAt: new Date() });
  }

  /** Deletes the row; whatever names the user elsewhere is its owners' to remove first. */
  async delete(manager: EntityManager, id: string): Promise<boolean> {
    this.changed(manager, id);
    const { affected } = await manager.withRepository(this.users).delete({ id });
    return (affected ?? 0) > 0;
  }

  /**
   * For access-token checks: the user, if `sessionId` (the token's `sid`) is one of their live
   * sessions, else null. The user and whether this session is live are read together (the
   * sessions' owner answers the second through `isLive`, in the same unit of work) and cached
   * together under the user's generation, which ending any session moves (`changed`), so a
   * session ended on any instance is refused by every instance's next check while the user's
   * other sessions stay served from memory. A session not in the copy yet is read again (see
   * UserCache). While Redis is down on this instance, every check reads the database.
   */
  async findForAccessCheck(
    id: string,
    sessionId: string,
    isLive: SessionCheck,
  ): Promise<User | null> {
    const load = () => this.findWithSession(id, sessionId, isLive);
    const stamp = await this.generations.current(id);
    const found =
      stamp === undefined
        ? await load()
        : await this.cache.getOrLoadWithSessions(id, sessionId, load, stamp);
    return found?.sessions.has(sessionId) ? found.user : null;
  }

  /**
   * The user, and `sessionId` among their sessions if it is live, from the database (the token
   * check's read on a miss). One session, not all of them: a user signed in on hundreds of
   * devices must not make every load read hundreds of rows.
   */
  findWithSession(
    id: string,
    sessionId: string,
    isLive: SessionCheck,
  ): Promise<UserWithSessions | null> {
    return this.database.run(async (manager) => {
      const user = await manager.withRepository(this.users).findOneBy({ id });
      if (!user) return null;
      const live = await isLive(manager, id, sessionId);
      return { user, sessions: new Set(live ? [sessionId] : []) };
    });
  }

  findByEmail(email: string): Promise<User | null> {
    const emailNormalized = normalizeEmail(email);
    return this.users.findOneBy({ emailNormalized });
  }

  /**
   * The user for a token being issued inside the caller's transaction: from the cache when warm
   * and current, as `findForAccessCheck`, else read through that transaction and kept. Never
   * through the pool, whose read would queue behind the caller's own transaction on SQLite.
   */
  findForTokenCheck(manager: EntityManager, id: string): Promise<User | null> {
    return this.throughCache(id, () => this.findIn(manager, id));
  }

  private async throughCache(id: string, load: () => Promise<User | null>): Promise<User | null> {
    const stamp = await this.generations.current(id);
    if (stamp === undefined) return load();
    return this.cache.getOrLoad(id, load, stamp);
  }

  /**
   * The user's current password hash, read inside the caller's transaction under a shared lock
   * (MySQL): a password reset in progress is waited for, other logins are not.
   */
  async passwordHashShared(manager: EntityManager, id: string): Promise<string | null | undefined> {
    const rows: unknown = await manager.query(
      `SELECT password_hash AS hash FROM users WHERE id = ?${this.database.sharedLockClause}`,
      [id],
    );
    return (rows as Array<{ hash: string | null }>)[0]?.hash;
  }

  /**
   * Inserts inside the caller's transaction. The unique indexes decide races: of two parallel
   * registrations of one email exactly one insert succeeds; the other gets DuplicateUserError.
   */
  async create(manager: EntityManager, input: NewUser): Promise<User> {
    const user = this.build(input);
    try {
      await manager.withRepository(this.users).insert(user);
      return user;
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      throw await this.conflictOf(manager, user);
    }
  }

  /**
   * The user `create` would insert, with a new id, not stored. Registration under
   * ACCOUNT_ENUMERATION_PROTECTION answers a taken email with one, as if it had been created.
   */
  build(input: NewUser): User {
    const now = new Date();
    return Object.assign(new User(), {
      id: newUserId(),
      email: cleanEmail(input.email),
      emailNormalized: normalizeEmail(input.email),
      username: input.username.trim(),
      usernameNormalized: normalizeUsername(input.username),
      name: null,
      picture: null,
      passwordHash: input.passwordHash,
      role: USER_ROLE,
      emailVerified: false,
      verifiedAt: null,
      tokenVersion: 0,
      disabledAt: null,
      createdAt: now,
      updatedAt: now,
    });
  }

  /** Marks the email verified (once: a later call keeps the first `verifiedAt`). */
  async markEmailVerified(manager: EntityManager, userId: string): Promise<User> {
    this.changed(manager, userId);
    const now = new Date();
    await manager
      .withRepository(this.users)
      .update(
        { id: userId, emailVerified: false },
        { emailVerified: true, verifiedAt: now, updatedAt: now },
      );
    return this.requireIn(manager, userId);
  }

  /** Null removes the password: the account signs in (and confirms changes) without one. */
  async setPasswordHash(
    manager: EntityManager,
    userId: string,
    passwordHash: string | null,
  ): Promise<void> {
    await manager
      .withRepository(this.users)
      .update({ id: userId }, { passwordHash, updatedAt: new Date() });
  }

  /** Invalidates every access token issued to the user so far. */
  async revokeAccessTokens(manager: EntityManager, userId: string): Promise<void> {
    this.changed(manager, userId);
    await manager
      .withRepository(this.users)
      .createQueryBuilder()
      .update()
      .set({ tokenVersion: () => 'token_version + 1', updatedAt: new Date() })
      .where('id = :userId', { userId })
      .execute();
  }

  /**
   * Clears the cached user now and again once the transaction has committed, then gives the
   * user a new generation in Redis before the change answers, so every other instance's next
   * check reads the database. Every change to a user goes through here, management changes
   * (UserDirectory) included.
   */
  changed(manager: EntityManager, userId: string): void {
    this.cache.invalidate(userId);
    this.database.afterCommit(manager, () => {
      this.cache.invalidate(userId);
      return this.generations.bump(userId);
    });
  }

  private async conflictOf(manager: EntityManager, user: User): Promise<DuplicateUserError> {
    const users = manager.withRepository(this.users);
    const sameEmail = await users.existsBy({ emailNormalized: user.emailNormalized });
    const sameUsername = await users.existsBy({ usernameNormalized: user.usernameNormalized });
    return new DuplicateUserError(sameEmail ? 'email' : 'username', sameUsername);
  }
}
