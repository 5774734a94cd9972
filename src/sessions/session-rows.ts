import { Inject, Injectable } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import { EntityManager } from 'typeorm';
import { ClientInfo, storedUserAgent } from '../common/http/request-context';
import { JwtConfig } from '../config/config.sections';
import { Database } from '../database/database.service';
import { epochSeconds } from '../tokens/epoch-seconds';
import { REFRESH_JWT } from '../tokens/jwt-options';
import { hashToken } from '../tokens/token-hash';
import { SessionAuth } from '../tokens/access-tokens.service';
import { IssuedRefreshToken, RefreshClaims } from './refresh-claims';

/** A row from before the `amr` column: only password logins made sessions then. */
const BEFORE_AMR: readonly string[] = Object.freeze(['pwd']);
import { RefreshSession } from './refresh-session.entity';
import { SessionLifetime } from './session-lifetime';

/**
 * The rows of refresh_sessions and the tokens they stand for: a login's first row, a rotation's
 * successor, and the token signed from a row. The hottest statements are plain SQL (`?`
 * placeholders, both dialects): TypeORM's query builder costs more CPU than they do.
 */
@Injectable()
export class SessionRows {
  constructor(
    private readonly jwt: JwtConfig,
    @Inject(REFRESH_JWT) private readonly signer: JwtService,
    private readonly database: Database,
    private readonly lifetime: SessionLifetime,
  ) {}

  /** A login's first row: the session starts now, from this client, authenticated by `auth`. */
  async insertFirst(
    manager: EntityManager,
    userId: string,
    familyId: string,
    jti: string,
    auth: SessionAuth,
    client: ClientInfo | undefined,
  ): Promise<IssuedRefreshToken> {
    const row = this.newRow(userId, familyId, jti, new Date(), undefined, auth, false);
    const date = (value: Date | null) => (value ? this.database.sqlDate(value) : null);
    await this.database.write(
      manager,
      'INSERT INTO refresh_sessions (id, user_id, family_id, created_at, expires_at,' +
        ' started_at, ip, user_agent, auth_time, amr, module_claims)' +
        ' VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0)',
      [
        row.id,
        userId,
        familyId,
        date(row.createdAt),
        date(row.expiresAt),
        date(row.startedAt),
        client?.ip.slice(0, 45) ?? null,
        storedUserAgent(client),
        date(row.authTime),
        row.amr,
      ],
    );
    return this.reissue(row, jti, row.createdAt);
  }

  /**
   * A rotation's row: the login client is copied from the row just claimed, in the one statement
   * the rotation writes anyway (no read, no second write); the session's start and authentication
   * are the ones the claims named (or the claimed row held), so the row, its token and the access
   * token beside it agree, and so does `moduleClaims`. Its `created_at` is the session's last use.
   */
  async insertSuccessor(
    manager: EntityManager,
    source: Pick<RefreshSession, 'id' | 'userId' | 'familyId'>,
    jti: string,
    now: Date,
    start: Date,
    auth: SessionAuth,
    moduleClaims: boolean,
  ): Promise<IssuedRefreshToken> {
    const row = this.newRow(source.userId, source.familyId, jti, now, start, auth, moduleClaims);
    const inserted = await this.database.write(
      manager,
      'INSERT INTO refresh_sessions (id, user_id, family_id, created_at, expires_at,' +
        ' started_at, ip, user_agent, auth_time, amr, module_claims)' +
        ' SELECT ?, user_id, family_id, ?, ?, ?, ip, user_agent, ?, ?, ?' +
        ' FROM refresh_sessions WHERE id = ?',
      [
        row.id,
        this.database.sqlDate(row.createdAt),
        this.database.sqlDate(row.expiresAt),
        this.database.sqlDate(start),
        this.database.sqlDate(auth.authTime),
        row.amr,
        moduleClaims ? 1 : 0,
        source.id,
      ],
    );
    // The claimed row is held by this transaction: it cannot have gone.
    if (inserted !== 1) throw new Error('The rotated refresh session has no row');
    return this.reissue(row, jti, row.createdAt);
  }

  /** How a stored row's session was authenticated (a row older than the columns: a login). */
  authOf(row: RefreshSession): SessionAuth {
    return {
      methods: row.amr ? row.amr.split(',') : BEFORE_AMR,
      authTime: row.authTime ?? this.lifetime.startOf(row),
    };
  }

  /** Whether a module adds claims to the row's session (a row older than the column: ask). */
  moduleClaimsOf(row: RefreshSession): boolean {
    return row.moduleClaims !== false;
  }

  /**
   * Marks the live rows of a session as having claims a module adds, or none: its next tokens
   * say so, and a refresh asks the modules only when they do.
   */
  async markModuleClaims(
    manager: EntityManager,
    userId: string,
    familyId: string,
    moduleClaims: boolean,
  ): Promise<void> {
    await this.database.write(
      manager,
      'UPDATE refresh_sessions SET module_claims = ? WHERE family_id = ? AND user_id = ?' +
        ' AND revoked_at IS NULL',
      [moduleClaims ? 1 : 0, familyId, userId],
    );
  }

  /**
   * Signs the token for a stored session: the same row always gives the same token (every claim,
   * `iat` and `exp` included, comes from the row, and HS256 has no randomness). Its `exp` is
   * never past the session's end, even for a row written before SESSION_MAX_AGE was lowered.
   * `expiresIn` (the cookie's Max-Age) counts from `asOf`: a new row's own creation, so the
   * cookie matches the token's lifetime whatever second the signing falls in; otherwise now.
   */
  reissue(row: RefreshSession, jti: string, asOf: Date = new Date()): IssuedRefreshToken {
    const iat = epochSeconds(row.createdAt);
    const exp = epochSeconds(this.lifetime.expiryOf(row));
    const auth = this.authOf(row);
    const moduleClaims = this.moduleClaimsOf(row);
    const claims: RefreshClaims = {
      sub: row.userId,
      typ: 'refresh',
      jti,
      fam: row.familyId,
      sst: epochSeconds(this.lifetime.startOf(row)),
      ath: epochSeconds(auth.authTime),
      amr: [...auth.methods],
      mcl: moduleClaims,
      iat,
      exp,
    };
    return {
      token: this.signer.sign({ ...claims }),
      expiresIn: Math.max(0, exp - epochSeconds(asOf)),
      expiresAt: exp,
      family: row.familyId,
      auth,
      moduleClaims,
    };
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
    auth: SessionAuth,
    moduleClaims: boolean,
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
      // Whole seconds, as the tokens carry it: a row reissued later signs the same `ath`.
      authTime: new Date(epochSeconds(auth.authTime) * 1000),
      amr: auth.methods.join(','),
      moduleClaims,
    };
  }
}
