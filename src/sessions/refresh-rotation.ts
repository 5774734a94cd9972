import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, IsNull, Repository } from 'typeorm';
import { DomainEvents } from '../events/domain-events.service';
import { AppException } from '../common/errors/app.exception';
import { ClientInfo } from '../common/http/request-context';
import { JwtConfig } from '../config/config.sections';
import { Database } from '../database/database.service';
import { Metrics } from '../metrics/metrics.service';
import { hashToken, randomToken, successorJti } from '../tokens/token-hash';
import { SessionAuth } from '../tokens/access-tokens.service';
import { User } from '../users/user.entity';
import { UsersService } from '../users/users.service';
import { IssuedRefreshToken, RefreshClaims, authOfClaims } from './refresh-claims';
import { RefreshSession } from './refresh-session.entity';
import { SessionLifetime } from './session-lifetime';
import { SessionRows } from './session-rows';

/** A rotation's outcome: the successor, and the user to sign its access token from. */
export interface Rotated {
  refresh: IssuedRefreshToken;
  /** Read under lock in the rotation's transaction. */
  user: User;
}

/** How many rotations inside one grace window a late copy may be walked forward through. */
const MAX_CHAIN = 16;

/** Why a refresh token is refused, as the answer words it. */
const REFUSED = 'The refresh token is invalid or has expired';
const REUSED = 'The refresh token was already used; the session has been ended';

/** A late copy came back: the family's revocation commits, then the refresh is refused. */
const STOLEN = Symbol('stolen');
type Outcome = IssuedRefreshToken | typeof STOLEN;

/**
 * Exchanges a refresh token for its successor. The first presentation rotates; a copy presented
 * again within REFRESH_REUSE_GRACE seconds gets the same live successor (parallel tabs); a copy
 * presented later is theft, and the whole family is revoked. A refusal is `401 INVALID_TOKEN`,
 * the same code the guard answers a token it cannot verify with, and each exchange is counted.
 */
@Injectable()
export class RefreshRotation {
  constructor(
    @InjectRepository(RefreshSession) private readonly sessions: Repository<RefreshSession>,
    private readonly jwt: JwtConfig,
    private readonly database: Database,
    private readonly rows: SessionRows,
    private readonly users: UsersService,
    private readonly events: DomainEvents,
    private readonly lifetime: SessionLifetime,
    private readonly metrics: Metrics,
  ) {}

  /**
   * `reauthenticated`: the session was just authenticated again (step-up); the successor and its
   * access token carry that instead of the session's earlier authentication. Only a live,
   * unrotated token can be rotated so: a retired copy is refused rather than answered with a
   * successor that does not say it.
   */
  async rotate(
    claims: RefreshClaims,
    client?: ClientInfo,
    reauthenticated?: SessionAuth,
  ): Promise<Rotated> {
    const rotated = await this.database
      .transaction(async (manager) => {
        const live = await this.claimLive(manager, claims, reauthenticated);
        if (!live && reauthenticated) throw refused();
        const refresh = live ?? (await this.retired(manager, claims, client));
        if (refresh === STOLEN) return STOLEN;
        // Read before the commit, while the session row is held: every revocation must lock
        // that row too (sessions first, then the user), so none can commit in between, and the
        // access token signed from this user cannot outlive a logout.
        const user = await this.users.findForTokenCheck(manager, claims.sub);
        // Deleted or disabled: the successor must not be committed, or it would come back to
        // life when the account is enabled again.
        if (!user || user.disabledAt) throw refused();
        return { refresh, user };
      })
      .catch((error: unknown) => {
        if (error instanceof AppException && error.code === 'INVALID_TOKEN') {
          this.metrics.refreshed('invalid');
        }
        throw error;
      });
    // Counted, as reuse_detected, from the event once the revocation has committed.
    if (rotated === STOLEN) {
      throw new AppException('INVALID_TOKEN', { message: REUSED });
    }
    this.metrics.refreshed('ok');
    return rotated;
  }

  /**
   * A new refresh token for the session `familyId`, authenticated again, when the caller has no
   * refresh token of it at hand (a bearer client's step-up): its current row is retired and a
   * successor of a fresh id inserted. A copy of the retired token presented in the grace window
   * does not find this successor (it is not derived from it) and is refused, as any stale token.
   */
  async renew(userId: string, familyId: string, auth: SessionAuth): Promise<Rotated> {
    return this.database.transaction(async (manager) => {
      const now = new Date();
      const current = await manager.withRepository(this.sessions).findOne({
        where: { userId, familyId, rotatedAt: IsNull(), revokedAt: IsNull() },
        lock: this.database.rowLock,
      });
      if (!current || this.lifetime.expiryOf(current).getTime() <= now.getTime()) throw refused();
      await manager
        .withRepository(this.sessions)
        .update({ id: current.id, rotatedAt: IsNull() }, { rotatedAt: now });
      const start = this.lifetime.startOf(current);
      const refresh = await this.rows.insertSuccessor(
        manager,
        current,
        randomToken(),
        now,
        start,
        auth,
        this.rows.moduleClaimsOf(current),
      );
      const user = await this.users.findForTokenCheck(manager, userId);
      if (!user || user.disabledAt) throw refused();
      this.metrics.refreshed('ok');
      return { refresh, user };
    });
  }

  /**
   * The common case in one statement: the presented token is live and not yet rotated, and its
   * session younger than SESSION_MAX_AGE (judged in the statement, so a lowered one holds at
   * once), so it is marked rotated (and held) and its successor inserted. Its expiry is the
   * JWT's own, already checked. Anything else returns undefined for the careful path. The
   * token's `mcl` must match the row's too: a session whose module claims changed since (an
   * organization chosen) is claimed by a second statement and its row read.
   */
  private async claimLive(
    manager: EntityManager,
    claims: RefreshClaims,
    reauthenticated: SessionAuth | undefined,
  ): Promise<IssuedRefreshToken | undefined> {
    const now = new Date();
    let claimed = await this.claim(manager, claims, now, claims.mcl);
    const changed = claimed !== 1 && claims.mcl !== undefined;
    if (changed) claimed = await this.claim(manager, claims, now, undefined);
    if (claimed !== 1) return undefined;
    const auth = authOfClaims(claims);
    // A token issued before its claims carried all of this, or whose module claims changed
    // since: the row just claimed knows.
    const row =
      claims.sst === undefined || auth === undefined || claims.mcl === undefined || changed
        ? await manager.withRepository(this.sessions).findOneByOrFail({ id: hashToken(claims.jti) })
        : undefined;
    const start = row ? this.lifetime.startOf(row) : new Date(claims.sst! * 1000);
    const next = successorJti(this.jwt.refreshSecret, claims.jti);
    const source = { id: hashToken(claims.jti), userId: claims.sub, familyId: claims.fam };
    const kept = row ? this.rows.authOf(row) : auth!;
    const moduleClaims = row ? this.rows.moduleClaimsOf(row) : claims.mcl!;
    const successorAuth = reauthenticated ?? kept;
    return this.rows.insertSuccessor(
      manager,
      source,
      next,
      now,
      start,
      successorAuth,
      moduleClaims,
    );
  }

  /** Marks the presented token rotated if live (and its row's `module_claims` is `mcl`, if given). */
  private claim(
    manager: EntityManager,
    claims: RefreshClaims,
    now: Date,
    mcl: boolean | undefined,
  ): Promise<number> {
    return this.database.write(
      manager,
      'UPDATE refresh_sessions SET rotated_at = ? WHERE id = ? AND user_id = ? AND family_id = ?' +
        ' AND rotated_at IS NULL AND revoked_at IS NULL AND COALESCE(started_at, created_at) > ?' +
        (mcl === undefined ? '' : ' AND module_claims = ?'),
      [
        this.database.sqlDate(now),
        hashToken(claims.jti),
        claims.sub,
        claims.fam,
        this.database.sqlDate(this.lifetime.cutoff(now)),
        ...(mcl === undefined ? [] : [mcl ? 1 : 0]),
      ],
    );
  }

  /** A token already rotated (grace window or reuse), revoked, expired or unknown. */
  private async retired(
    manager: EntityManager,
    claims: RefreshClaims,
    client: ClientInfo | undefined,
  ): Promise<Outcome> {
    const presented = await this.lockRow(manager, claims.jti);
    // Judged once the row is held: a wait for the lock must not stretch the grace window.
    const now = new Date();
    if (!presented) return this.purgedCopy(manager, claims, now, client);
    if (!this.belongs(presented, claims, now)) throw refused();
    return this.successor(manager, presented, claims, now, client);
  }

  /**
   * A signed, unexpired token without its row: rows are deleted only once revoked, expired, or
   * rotated longer ago than the grace window (SessionJanitor). If its family still has a live
   * session issued after this token, this token was rotated into it: a late copy, so theft. A
   * token newer than everything stored (a restored backup) is only refused: its holder is not a
   * thief.
   */
  private async purgedCopy(
    manager: EntityManager,
    claims: RefreshClaims,
    now: Date,
    client: ClientInfo | undefined,
  ): Promise<typeof STOLEN> {
    const family = await manager.withRepository(this.sessions).find({
      where: { familyId: claims.fam, revokedAt: IsNull() },
      lock: this.database.rowLock,
    });
    const issued = claims.iat * 1000;
    const successor = family.some(
      (row) => this.belongs(row, claims, now) && row.createdAt.getTime() >= issued,
    );
    if (!successor) throw refused();
    return this.theft(manager, claims, client);
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
  ): Promise<Outcome> {
    if (presented.rotatedAt === null) throw refused();
    if (!this.lifetime.withinGrace(presented.rotatedAt, now)) {
      return this.theft(manager, claims, client);
    }
    return this.currentSuccessor(manager, claims, now);
  }

  /**
   * A retired token came back after its grace window: the family dies, and so do the user's
   * access tokens (other devices renew through their own refresh tokens), on record. The
   * refusal must not roll that back: it is answered once the transaction has committed.
   */
  private async theft(
    manager: EntityManager,
    claims: RefreshClaims,
    client: ClientInfo | undefined,
  ): Promise<typeof STOLEN> {
    await manager
      .withRepository(this.sessions)
      .update({ familyId: claims.fam, revokedAt: IsNull() }, { revokedAt: new Date() });
    await this.users.revokeAccessTokens(manager, claims.sub);
    await this.events.publish(manager, {
      type: 'session.revoked',
      data: { userId: claims.sub, sessions: [{ id: claims.fam }], reason: 'reuse_detected' },
      origin: { client },
    });
    return STOLEN;
  }

  private async currentSuccessor(
    manager: EntityManager,
    claims: RefreshClaims,
    now: Date,
  ): Promise<IssuedRefreshToken> {
    let jti = claims.jti;
    for (let step = 0; step < MAX_CHAIN; step++) {
      jti = successorJti(this.jwt.refreshSecret, jti);
      const row = await this.lockRow(manager, jti);
      if (!row || !this.belongs(row, claims, now)) throw refused();
      if (row.rotatedAt === null) return this.rows.reissue(row, jti);
    }
    throw refused();
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
}

function refused(): AppException {
  return new AppException('INVALID_TOKEN', { message: REFUSED });
}
