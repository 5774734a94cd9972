import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { EntityManager } from 'typeorm';
import { JwtConfig } from '../config/config.sections';
import { Database } from '../database/database.service';
import { BaseClaims, JwtSigner, epochSeconds } from './jwt-signer';
import { RefreshSession } from './refresh-session.entity';
import { RevocationService } from './revocation.service';
import { hashToken, randomToken, successorJti } from './token-hash';

export interface RefreshClaims extends BaseClaims {
  typ: 'refresh';
  jti: string;
  /** The session family: every token rotated from one login. */
  fam: string;
}

export interface IssuedRefreshToken {
  userId: string;
  token: string;
  /** Seconds. */
  expiresIn: number;
}

export type RotationResult =
  | { outcome: 'rotated'; refresh: IssuedRefreshToken }
  | { outcome: 'invalid' }
  | { outcome: 'reused' };

/** How many rotations inside one grace window a late copy may be walked forward through. */
const MAX_CHAIN = 16;

@Injectable()
export class RefreshTokensService {
  readonly signer: JwtSigner;

  constructor(
    private readonly jwt: JwtConfig,
    private readonly database: Database,
    private readonly revocation: RevocationService,
  ) {
    this.signer = new JwtSigner(jwt.refreshSecret, 'refresh');
  }

  /** A new session family, at login. */
  issue(userId: string): Promise<IssuedRefreshToken> {
    return this.database.run((manager) =>
      this.insert(manager, userId, randomUUID(), randomToken(), new Date()),
    );
  }

  /**
   * Exchanges a refresh token for its successor. The first presentation rotates; a copy presented
   * again within REFRESH_REUSE_GRACE seconds gets the same live successor (parallel tabs); a copy
   * presented later is theft, and the whole family is revoked.
   */
  async rotate(claims: RefreshClaims): Promise<RotationResult> {
    const now = new Date();
    return this.database.transaction(async (manager) => {
      const presented = await this.lockRow(manager, claims.jti);
      if (!presented || !this.belongs(presented, claims, now)) return { outcome: 'invalid' };
      if (presented.rotatedAt === null) {
        await manager.update(RefreshSession, { id: presented.id }, { rotatedAt: now });
        const next = successorJti(this.jwt.refreshSecret, claims.jti);
        const refresh = await this.insert(manager, claims.sub, claims.fam, next, now);
        return { outcome: 'rotated', refresh };
      }
      if (now.getTime() - presented.rotatedAt.getTime() > this.jwt.refreshReuseGrace * 1000) {
        await this.revocation.revokeFamily(manager, claims.sub, claims.fam);
        return { outcome: 'reused' };
      }
      return this.currentSuccessor(manager, claims, now);
    });
  }

  private async currentSuccessor(
    manager: EntityManager,
    claims: RefreshClaims,
    now: Date,
  ): Promise<RotationResult> {
    let jti = claims.jti;
    for (let step = 0; step < MAX_CHAIN; step++) {
      jti = successorJti(this.jwt.refreshSecret, jti);
      const row = await this.lockRow(manager, jti);
      if (!row || !this.belongs(row, claims, now)) return { outcome: 'invalid' };
      if (row.rotatedAt === null) return { outcome: 'rotated', refresh: this.reissue(row, jti) };
    }
    return { outcome: 'invalid' };
  }

  private belongs(row: RefreshSession, claims: RefreshClaims, now: Date): boolean {
    return (
      row.userId === claims.sub &&
      row.familyId === claims.fam &&
      row.revokedAt === null &&
      row.expiresAt.getTime() > now.getTime()
    );
  }

  private lockRow(manager: EntityManager, jti: string): Promise<RefreshSession | null> {
    return manager.findOne(RefreshSession, {
      where: { id: hashToken(jti) },
      lock: this.database.rowLock,
    });
  }

  private async insert(
    manager: EntityManager,
    userId: string,
    familyId: string,
    jti: string,
    now: Date,
  ): Promise<IssuedRefreshToken> {
    const iat = epochSeconds(now);
    const row = manager.create(RefreshSession, {
      id: hashToken(jti),
      userId,
      familyId,
      createdAt: new Date(iat * 1000),
      expiresAt: new Date((iat + this.jwt.refreshTtl) * 1000),
      rotatedAt: null,
      revokedAt: null,
    });
    await manager.insert(RefreshSession, row);
    return this.reissue(row, jti);
  }

  /** Signs the token for a stored session: the same row always gives the same token. */
  private reissue(row: RefreshSession, jti: string): IssuedRefreshToken {
    const iat = epochSeconds(row.createdAt);
    const exp = epochSeconds(row.expiresAt);
    const claims: RefreshClaims = {
      sub: row.userId,
      typ: 'refresh',
      jti,
      fam: row.familyId,
      iat,
      exp,
    };
    return {
      userId: row.userId,
      token: this.signer.sign({ ...claims }),
      expiresIn: Math.max(0, exp - epochSeconds()),
    };
  }

  static isRefreshClaims(payload: unknown): payload is RefreshClaims {
    const claims = payload as Partial<RefreshClaims> | null;
    return (
      typeof claims === 'object' &&
      claims !== null &&
      claims.typ === 'refresh' &&
      typeof claims.sub === 'string' &&
      typeof claims.jti === 'string' &&
      typeof claims.fam === 'string'
    );
  }
}
