import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { EntityManager, FindOperator, In, IsNull, MoreThan, Not, Repository } from 'typeorm';
import { ClientInfo } from '../common/http/request-context';
import { Database } from '../database/database.service';
import { SessionAuth } from '../tokens/access-tokens.service';
import { hashToken, randomToken } from '../tokens/token-hash';
import { UsersService } from '../users/users.service';
import { IssuedRefreshToken, RefreshClaims } from './refresh-claims';
import { RefreshRotation, Rotated } from './refresh-rotation';
import { RefreshSession } from './refresh-session.entity';
import { SessionLifetime } from './session-lifetime';
import { SessionRows } from './session-rows';

/**
 * The owner of sessions, end to end: a session is a refresh-token family, started for a user
 * with the methods that authenticated them, rotated, listed, ended (one, the others, all), and
 * removed with its account. No other module touches refresh_sessions.
 *
 * Revocations lock a user's sessions before the user row, everywhere, so two of them never
 * deadlock; callers that also change the user (a password reset, a disable) end the sessions
 * first, in the same transaction.
 */
@Injectable()
export class SessionsService {
  constructor(
    @InjectRepository(RefreshSession) private readonly sessions: Repository<RefreshSession>,
    private readonly database: Database,
    private readonly rows: SessionRows,
    private readonly rotation: RefreshRotation,
    private readonly users: UsersService,
    private readonly lifetime: SessionLifetime,
  ) {}

  /**
   * A new session for `userId`, authenticated now by `methods` (RFC 8176 names), inside the
   * caller's transaction: the caller has checked whatever authenticated the user, and reads the
   * user under the same transaction to sign its access token.
   */
  start(
    manager: EntityManager,
    userId: string,
    methods: readonly string[],
    client: ClientInfo | undefined,
  ): Promise<IssuedRefreshToken> {
    const auth = { methods, authTime: new Date() };
    return this.rows.insertFirst(manager, userId, randomUUID(), randomToken(), auth, client);
  }

  /** The refresh token's successor (see RefreshRotation); a refused token is 401 INVALID_TOKEN. */
  rotate(claims: RefreshClaims, client?: ClientInfo): Promise<Rotated> {
    return this.rotation.rotate(claims, client);
  }

  /**
   * The session `familyId` of the user was just authenticated again by `methods` (step-up): new
   * tokens for it, its `auth_time` now and its `amr` those methods, its start unchanged. With
   * the session's refresh token at hand (a browser sends the cookie) it is rotated as a refresh
   * would, so parallel tabs keep the grace window; without, the session's current token is
   * retired for a new one. 401 INVALID_TOKEN when the session is not live.
   */
  reauthenticate(
    userId: string,
    familyId: string,
    methods: readonly string[],
    presented: RefreshClaims | undefined,
    client?: ClientInfo,
  ): Promise<Rotated> {
    const auth = { methods, authTime: new Date() };
    if (presented?.sub === userId && presented.fam === familyId) {
      return this.rotation.rotate(presented, client, auth);
    }
    return this.rotation.renew(userId, familyId, auth);
  }

  /**
   * New tokens for the live session `familyId`, its authentication as it was (what its tokens
   * carry changed: the active organization). Rotated as a refresh when its refresh token is at
   * hand, else its current token is retired for a new one. 401 INVALID_TOKEN when not live.
   */
  renew(
    userId: string,
    familyId: string,
    auth: SessionAuth,
    presented: RefreshClaims | undefined,
    client?: ClientInfo,
  ): Promise<Rotated> {
    if (presented?.sub === userId && presented.fam === familyId) {
      return this.rotation.rotate(presented, client);
    }
    return this.rotation.renew(userId, familyId, auth);
  }

  /**
   * Marks the session `familyId` as having claims a module adds to its access tokens, or none
   * (in the transaction that changes them): its renewals ask the SessionClaims sources only
   * when it has. Its next tokens (renew it) say so.
   */
  markModuleClaims(
    manager: EntityManager,
    userId: string,
    familyId: string,
    moduleClaims: boolean,
  ): Promise<void> {
    return this.rows.markModuleClaims(manager, userId, familyId, moduleClaims);
  }

  /** The session behind these claims is live: not revoked, not expired, not retired long ago. */
  async isLive(claims: RefreshClaims): Promise<boolean> {
    const row = await this.sessions.findOneBy({ id: hashToken(claims.jti) });
    const now = new Date();
    return (
      row !== null &&
      row.userId === claims.sub &&
      row.familyId === claims.fam &&
      row.revokedAt === null &&
      this.lifetime.expiryOf(row).getTime() > now.getTime() &&
      (row.rotatedAt === null || this.lifetime.withinGrace(row.rotatedAt, now))
    );
  }

  /**
   * Whether `familyId` is a live session of the user, inside the caller's unit of work (the
   * access-token check asks it beside the user's row, see UsersService.findForAccessCheck). A
   * live session is a family with a current (unrotated, unrevoked) token: a rotation marks one
   * row rotated and inserts its successor in one transaction, so a family always has exactly one
   * such row until it is revoked. An expired one counts until the janitor removes it: its access
   * tokens expired before it did.
   */
  isFamilyLive(manager: EntityManager, userId: string, familyId: string): Promise<boolean> {
    return manager
      .withRepository(this.sessions)
      .existsBy({ familyId, userId, revokedAt: IsNull(), rotatedAt: IsNull() });
  }

  /**
   * The current token of each of the user's live sessions (not revoked, not expired, not past
   * SESSION_MAX_AGE), newest use first: exactly one per live session.
   */
  async list(userId: string): Promise<RefreshSession[]> {
    const now = new Date();
    const rows = await this.sessions.find({
      where: { userId, revokedAt: IsNull(), rotatedAt: IsNull(), expiresAt: MoreThan(now) },
      order: { createdAt: 'DESC', familyId: 'ASC' },
    });
    // One entry per session even if a family ever held two current rows (it cannot today).
    const byFamily = new Map<string, RefreshSession>();
    for (const row of rows) if (!byFamily.has(row.familyId)) byFamily.set(row.familyId, row);
    // Past its end under a SESSION_MAX_AGE lowered since the row was written: no longer live.
    return [...byFamily.values()].filter(
      (row) => this.lifetime.expiryOf(row).getTime() > now.getTime(),
    );
  }

  /**
   * Every session of the user, and every access token (the token version moves), on every
   * device: logout, a password reset or change, an administrator's action. Returns the ids of
   * the live sessions it ended.
   */
  endAll(userId: string, manager?: EntityManager): Promise<string[]> {
    const work = async (em: EntityManager) => {
      const live = await this.liveFamilies(em, userId);
      await em
        .withRepository(this.sessions)
        .update({ userId, revokedAt: IsNull() }, { revokedAt: new Date() });
      await this.users.revokeAccessTokens(em, userId);
      return live;
    };
    return manager ? work(manager) : this.database.transaction(work);
  }

  /**
   * One of the user's live sessions: its refresh tokens are revoked, and its access tokens
   * (`sid`) are refused by every instance's next check once the user's generation has moved
   * after the commit. The user's token version stays: their other sessions' access tokens keep
   * working. False when the user has no such live session (another user's, unknown, ended,
   * expired): nothing changes then.
   */
  async end(manager: EntityManager, userId: string, familyId: string): Promise<boolean> {
    return (await this.endFamilies(manager, userId, { familyId })).length > 0;
  }

  /** Every live session of the user but `keepFamilyId`; returns the ids of those ended. */
  endOthers(manager: EntityManager, userId: string, keepFamilyId: string): Promise<string[]> {
    return this.endFamilies(manager, userId, { familyId: Not(keepFamilyId) });
  }

  /**
   * An account's removal: its sessions' rows go, before the user row (the same lock order).
   * Returns the ids of the live ones among them.
   */
  async deleteAllOf(manager: EntityManager, userId: string): Promise<string[]> {
    const live = await this.liveFamilies(manager, userId);
    await manager.withRepository(this.sessions).delete({ userId });
    return live;
  }

  /** The user's live sessions (their current tokens held, as a revocation holds them). */
  private async liveFamilies(manager: EntityManager, userId: string): Promise<string[]> {
    const current = await manager.withRepository(this.sessions).find({
      select: { id: true, familyId: true },
      where: { userId, revokedAt: IsNull(), rotatedAt: IsNull(), expiresAt: MoreThan(new Date()) },
      lock: this.database.rowLock,
    });
    return [...new Set(current.map((row) => row.familyId))];
  }

  private async endFamilies(
    manager: EntityManager,
    userId: string,
    which: { familyId: string | FindOperator<string> },
  ): Promise<string[]> {
    const sessions = manager.withRepository(this.sessions);
    // Each live session's current token, held (MySQL) so a rotation racing this waits for it,
    // then finds its token revoked.
    const current = await sessions.find({
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
    await sessions.update(
      { userId, familyId: In(families), revokedAt: IsNull() },
      { revokedAt: new Date() },
    );
    this.users.changed(manager, userId);
    return families;
  }
}
