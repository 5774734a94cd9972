import { Inject, Injectable } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import { randomUUID } from 'node:crypto';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, IsNull, MoreThan, Repository } from 'typeorm';
import { AuditTrail } from '../audit/audit-trail.service';
import { ClientInfo, storedUserAgent } from '../common/http/request-context';
import { JwtConfig } from '../config/config.sections';
import { Database } from '../database/database.service';
import { User } from '../users/user.entity';
import { UsersService } from '../users/users.service';
import { epochSeconds } from './epoch-seconds';
import { REFRESH_JWT } from './jwt-options';
import { RefreshSession } from './refresh-session.entity';
import { RevocationService } from './revocation.service';
import { SessionLifetime } from './session-lifetime';
import { hashToken, randomToken, successorJti } from './token-hash';

export interface RefreshClaims {
  sub: string;
  /** The purpose: no other token of the service carries it. */
  typ: 'refresh';
  iat: number;
  exp: number;
  jti: string;
  /** The session family: every token rotated from one login. */
  fam: string;
  /**
   * The session's start (its login), epoch seconds, from which SESSION_MAX_AGE counts: a
   * rotation needs it for the successor's expiry and reads no row for it. Absent from tokens
   * issued before the absolute lifetime; their rotation reads it instead.
   */
  sst?: number;
}

export interface IssuedRefreshToken {
  token: string;
  /** Seconds. */
  expiresIn: number;
  /** Its `exp`, epoch seconds: no access token issued beside it lives longer. */
  expiresAt: number;
  /** The session family, which the access tokens issued beside it name as `sid`. */
  family: string;
}

export type RotationResult =
  /** `user` was read under lock in the rotation's transaction: sign the access token from it. */
  | { outcome: 'rotated'; refresh: IssuedRefreshToken; user: User }
  | { outcome: 'invalid' }
  | { outcome: 'reused' };

type Rotated = { outcome: 'rotated'; refresh: IssuedRefreshToken };
type Unrotated = { outcome: 'invalid' } | { outcome: 'reused' };

/** How many rotations inside one grace window a late copy may be walked forward through. */
const MAX_CHAIN = 16;

@Injectable()
export class RefreshTokensService {
  constructor(
    @InjectRepository(RefreshSession) private readonly sessions: Repository<RefreshSession>,
    private readonly jwt: JwtConfig,
    @Inject(REFRESH_JWT) private readonly signer: JwtService,
    private readonly database: Database,
    private readonly revocation: RevocationService,
    private readonly users: UsersService,
    private readonly audit: AuditTrail,
    private readonly lifetime: SessionLifetime,
  ) {}

  /**
   * A new session family, at login. The password was checked before (that takes a while); here,
   * with the user row held, the hash must still be the one that was checked, so a login racing a
   * password reset cannot end up with a session the reset did not revoke. Returns the user as
   * read under lock, to sign the access token from, or null if the password changed meanwhile.
   */
  start(
    userId: string,
    checkedHash: string,
    client?: ClientInfo,
  ): Promise<{ user: User; refresh: IssuedRefreshToken } | null> {
    return this.database.transaction(async (manager) => {
      if ((await this.users.passwordHashShared(manager, userId)) !== checkedHash) return null;
      const user = await this.users.findIn(manager, userId);
      // Disabled meanwhile (the login checked it before hashing): no session for it.
      if (!user || user.disabledAt) return null;
      const refresh = await this.insert(
        manager,
        userId,
        randomUUID(),
        randomToken(),
        new Date(),
        client,
      );
      await this.audit.record(manager, 'login_succeeded', userId, client, {
        sessionId: refresh.family,
      });
      return { user, refresh };
    });
  }

  /**
   * A new session family inside the caller's transaction, for a change that has just ended every
   * session of the user but must keep its own caller signed in (a password change). The caller
   * has checked the user, and revoked the old sessions first, in the same transaction.
   */
  startWithin(
    manager: EntityManager,
    userId: string,
    client: ClientInfo | undefined,
  ): Promise<IssuedRefreshToken> {
    return this.insert(manager, userId, randomUUID(), randomToken(), new Date(), client);
  }

  /**
   * Exchanges a refresh token for its successor. The first presentation rotates; a copy presented
   * again within REFRESH_REUSE_GRACE seconds gets the same live successor (parallel tabs); a copy
   * presented later is theft, and the whole family is revoked.
   */
  async rotate(claims: RefreshClaims, client?: ClientInfo): Promise<RotationResult> {
    return this.database
      .transaction(async (manager) => {
        const result =
          (await this.claimLive(manager, claims)) ?? (await this.retired(manager, claims, client));
        if (result.outcome !== 'rotated') return result;
        // Read before the commit, while the session row is held: every revocation must lock
        // that row too (sessions first, then the user), so none can commit in between, and the
        // access token signed from this user cannot outlive a logout.
        const user = await this.users.findForTokenCheck(manager, claims.sub);
        // Deleted or disabled: the successor must not be committed, or it would come back to
        // life when the account is enabled again.
        if (!user || user.disabledAt) throw new RefusedRotation();
        return { ...result, user };
      })
      .catch((error: unknown): RotationResult => {
        if (error instanceof RefusedRotation) return { outcome: 'invalid' };
        throw error;
      });
  }

  /**
   * The common case in one statement: the presented token is live and not yet rotated, and its
   * session younger than SESSION_MAX_AGE (judged in the statement, so a lowered one holds at
   * once), so it is marked rotated (and held) and its successor inserted. Its expiry is the
   * JWT's own, already checked. Anything else returns undefined for the careful path.
   */
  private async claimLive(
    manager: EntityManager,
    claims: RefreshClaims,
  ): Promise<Rotated | undefined> {
    const now = new Date();
    const claimed = await this.database.write(
      manager,
      'UPDATE refresh_sessions SET rotated_at = ? WHERE id = ? AND user_id = ? AND family_id = ?' +
        ' AND rotated_at IS NULL AND revoked_at IS NULL AND COALESCE(started_at, created_at) > ?',
      [
        this.database.sqlDate(now),
        hashToken(claims.jti),
        claims.sub,
        claims.fam,
        this.database.sqlDate(this.lifetime.cutoff(now)),
      ],
    );
    if (claimed !== 1) return undefined;
    const start =
      claims.sst === undefined
        ? await this.startOfClaimed(manager, claims.jti)
        : new Date(claims.sst * 1000);
    const next = successorJti(this.jwt.refreshSecret, claims.jti);
    return {
      outcome: 'rotated',
      refresh: await this.insertSuccessor(manager, claims, next, now, start),
    };
  }

  /** A token issued before its claims named the session's start: the row just claimed knows. */
  private async startOfClaimed(manager: EntityManager, jti: string): Promise<Date> {
    const row = await manager.withRepository(this.sessions).findOneByOrFail({ id: hashToken(jti) });
    return this.lifetime.startOf(row);
  }

  /** A token already rotated (grace window or reuse), revoked, expired or unknown. */
  private async retired(
    manager: EntityManager,
    claims: RefreshClaims,
    client: ClientInfo | undefined,
  ): Promise<Rotated | Unrotated> {
    const presented = await this.lockRow(manager, claims.jti);
    // Judged once the row is held: a wait for the lock must not stretch the grace window.
    const now = new Date();
    if (!presented) return this.purgedCopy(manager, claims, now, client);
    if (!this.belongs(presented, claims, now)) return { outcome: 'invalid' };
    return this.successor(manager, presented, claims, now, client);
  }

  /**
   * A signed, unexpired token without its row: rows are deleted only once revoked, expired, or
   * rotated longer ago than the grace window (TokenJanitor). If its family still has a live
   * session issued after this token, this token was rotated into it: a late copy, so theft. A
   * token newer than everything stored (an embedded database that lost its last second in a
   * crash, a restored backup) is only invalid: its holder is not a thief.
   */
  private async purgedCopy(
    manager: EntityManager,
    claims: RefreshClaims,
    now: Date,
    client: ClientInfo | undefined,
  ): Promise<Unrotated> {
    const family = await manager.withRepository(this.sessions).find({
      where: { familyId: claims.fam, revokedAt: IsNull() },
      lock: this.database.rowLock,
    });
    const issued = claims.iat * 1000;
    const successor = family.some(
      (row) => this.belongs(row, claims, now) && row.createdAt.getTime() >= issued,
    );
    if (!successor) return { outcome: 'invalid' };
    await this.theft(manager, claims, client);
    return { outcome: 'reused' };
  }

  /**
   * The presented token was rotated before (`claimLive` rotates every live, unrotated row that
   * belongs to the claims, so an unrotated one cannot reach here): inside the grace window it gets
   * the current successor, after it the family is revoked as stolen.
   */
  private async successor(
    manager: EntityManager,
    presented: RefreshSession,
    claims: RefreshClaims,
    now: Date,
    client: ClientInfo | undefined,
  ): Promise<Rotated | Unrotated> {
    if (presented.rotatedAt === null) return { outcome: 'invalid' };
    if (!this.withinGrace(presented.rotatedAt, now)) {
      await this.theft(manager, claims, client);
      return { outcome: 'reused' };
    }
    return this.currentSuccessor(manager, claims, now);
  }

  /** A retired token came back after its grace window: the family dies, and it is on record. */
  private async theft(
    manager: EntityManager,
    claims: RefreshClaims,
    client: ClientInfo | undefined,
  ): Promise<void> {
    await this.revocation.revokeFamily(manager, claims.sub, claims.fam);
    await this.audit.record(manager, 'refresh_reuse_detected', claims.sub, client);
  }

  private withinGrace(rotatedAt: Date, now: Date): boolean {
    return now.getTime() - rotatedAt.getTime() <= this.jwt.refreshReuseGrace * 1000;
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
  async liveSessions(userId: string): Promise<RefreshSession[]> {
    const now = new Date();
    const rows = await this.database.run((manager) =>
      manager.withRepository(this.sessions).find({
        where: { userId, revokedAt: IsNull(), rotatedAt: IsNull(), expiresAt: MoreThan(now) },
        order: { createdAt: 'DESC', familyId: 'ASC' },
      }),
    );
    // One entry per session even if a family ever held two current rows (it cannot today).
    const byFamily = new Map<string, RefreshSession>();
    for (const row of rows) if (!byFamily.has(row.familyId)) byFamily.set(row.familyId, row);
    // Past its end under a SESSION_MAX_AGE lowered since the row was written: no longer live.
    return [...byFamily.values()].filter(
      (row) => this.lifetime.expiryOf(row).getTime() > now.getTime(),
    );
  }

  /** The session behind these claims is live: not revoked, not expired, not retired long ago. */
  async isLive(claims: RefreshClaims): Promise<boolean> {
    const row = await this.database.run((manager) =>
      manager.withRepository(this.sessions).findOneBy({ id: hashToken(claims.jti) }),
    );
    const now = new Date();
    return (
      row !== null &&
      this.belongs(row, claims, now) &&
      (row.rotatedAt === null || this.withinGrace(row.rotatedAt, now))
    );
  }

  private async currentSuccessor(
    manager: EntityManager,
    claims: RefreshClaims,
    now: Date,
  ): Promise<Rotated | { outcome: 'invalid' }> {
    let jti = claims.jti;
    for (let step = 0; step < MAX_CHAIN; step++) {
      jti = successorJti(this.jwt.refreshSecret, jti);
      const row = await this.lockRow(manager, jti);
      if (!row || !this.belongs(row, claims, now)) return { outcome: 'invalid' };
      if (row.rotatedAt === null) return { outcome: 'rotated', refresh: this.reissue(row, jti) };
    }
    return { outcome: 'invalid' };
  }

  /** Of these claims' session, neither revoked nor expired, nor past its session's end. */
  private belongs(row: RefreshSession, claims: RefreshClaims, now: Date): boolean {
    return (
      row.userId === claims.sub &&
      row.familyId === claims.fam &&
      row.revokedAt === null &&
      this.lifetime.expiryOf(row).getTime() > now.getTime()
    );
  }

  private lockRow(manager: EntityManager, jti: string): Promise<RefreshSession | null> {
    return manager.withRepository(this.sessions).findOne({
      where: { id: hashToken(jti) },
      lock: this.database.rowLock,
    });
  }

  /** A login's first row: the session starts now, from this client. */
  private async insert(
    manager: EntityManager,
    userId: string,
    familyId: string,
    jti: string,
    now: Date,
    client: ClientInfo | undefined,
  ): Promise<IssuedRefreshToken> {
    const row = this.newRow(userId, familyId, jti, now, undefined);
    await this.database.write(
      manager,
      'INSERT INTO refresh_sessions' +
        ' (id, user_id, family_id, created_at, expires_at, started_at, ip, user_agent)' +
        ' VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      [
        row.id,
        userId,
        familyId,
        this.database.sqlDate(row.createdAt),
        this.database.sqlDate(row.expiresAt),
        this.database.sqlDate(row.createdAt),
        client?.ip.slice(0, 45) ?? null,
        storedUserAgent(client),
      ],
    );
    return this.reissue(row, jti);
  }

  /**
   * A rotation's row: the login client is copied from the row just claimed, in the one statement
   * the rotation writes anyway (no read, no second write), so a refresh costs no more than
   * before; the session's start is the one the claims named (or the claimed row held), so the
   * row, its token and the successor's expiry agree. Its `created_at` is the session's last use.
   */
  private async insertSuccessor(
    manager: EntityManager,
    claims: RefreshClaims,
    jti: string,
    now: Date,
    start: Date,
  ): Promise<IssuedRefreshToken> {
    const row = this.newRow(claims.sub, claims.fam, jti, now, start);
    const inserted = await this.database.write(
      manager,
      'INSERT INTO refresh_sessions' +
        ' (id, user_id, family_id, created_at, expires_at, started_at, ip, user_agent)' +
        ' SELECT ?, user_id, family_id, ?, ?, ?, ip, user_agent' +
        ' FROM refresh_sessions WHERE id = ?',
      [
        row.id,
        this.database.sqlDate(row.createdAt),
        this.database.sqlDate(row.expiresAt),
        this.database.sqlDate(start),
        hashToken(claims.jti),
      ],
    );
    // The claimed row is held by this transaction: it cannot have gone.
    if (inserted !== 1) throw new Error('The rotated refresh session has no row');
    return this.reissue(row, jti);
  }

  /**
   * A row issued now, for a session that began at `start` (undefined: it begins now). It expires
   * REFRESH_TOKEN_TTL from now, or at the session's end if that comes first.
   */
  private newRow(
    userId: string,
    familyId: string,
    jti: string,
    now: Date,
    start: Date | undefined,
  ): RefreshSession {
    const iat = epochSeconds(now);
    const createdAt = new Date(iat * 1000);
    const startedAt = start ?? createdAt;
    const expiresAt = new Date(
      Math.min((iat + this.jwt.refreshTtl) * 1000, this.lifetime.endOf(startedAt).getTime()),
    );
    return {
      id: hashToken(jti),
      userId,
      familyId,
      createdAt,
      expiresAt,
      rotatedAt: null,
      revokedAt: null,
      startedAt,
      ip: null,
      userAgent: null,
    };
  }

  /**
   * Signs the token for a stored session: the same row always gives the same token (every claim,
   * `iat` and `exp` included, comes from the row, and HS256 has no randomness). Its `exp` is
   * never past the session's end, even for a row written before SESSION_MAX_AGE was lowered.
   */
  private reissue(row: RefreshSession, jti: string): IssuedRefreshToken {
    const iat = epochSeconds(row.createdAt);
    const exp = epochSeconds(this.lifetime.expiryOf(row));
    const claims: RefreshClaims = {
      sub: row.userId,
      typ: 'refresh',
      jti,
      fam: row.familyId,
      sst: epochSeconds(this.lifetime.startOf(row)),
      iat,
      exp,
    };
    return {
      token: this.signer.sign({ ...claims }),
      expiresIn: Math.max(0, exp - epochSeconds()),
      expiresAt: exp,
      family: row.familyId,
    };
  }

  static isRefreshClaims(payload: unknown): payload is RefreshClaims {
    const claims = payload as Partial<RefreshClaims> | null;
    return (
      typeof claims === 'object' &&
      claims !== null &&
      claims.typ === 'refresh' &&
      typeof claims.sub === 'string' &&
      typeof claims.exp === 'number' &&
      typeof claims.jti === 'string' &&
      typeof claims.fam === 'string' &&
      (claims.sst === undefined || typeof claims.sst === 'number')
    );
  }
}

/** Thrown to roll a rotation back: its user is gone or disabled. */
class RefusedRotation extends Error {}
