import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { EntityManager, FindOptionsWhere, In, IsNull, LessThan, Not } from 'typeorm';
import { Database } from '../database/database.service';
import { RefreshSession } from './refresh-session.entity';
import { VerificationToken } from './verification-token.entity';

const EVERY_MS = 10 * 60_000;
const BATCH = 500;
/** Used emailed tokens are kept a day, for support questions ("did the link work?"). */
const USED_TOKEN_KEEP_MS = 24 * 3600_000;

/**
 * Deletes rows that can never be accepted again, so the tables do not grow without end: refresh
 * sessions past their expiry or revoked, emailed tokens past their expiry or used a day ago.
 * Rotated sessions stay until they expire: a stolen copy presented later must still be
 * recognised as reuse.
 */
@Injectable()
export class TokenJanitor implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(TokenJanitor.name);
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly database: Database) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => {
      this.purge().catch((error: unknown) =>
        this.logger.warn(
          `Purge skipped: ${error instanceof Error ? error.message : String(error)}`,
        ),
      );
    }, EVERY_MS);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  /** Returns how many rows went. */
  async purge(now = new Date()): Promise<number> {
    const usedBefore = new Date(now.getTime() - USED_TOKEN_KEEP_MS);
    const batches: Array<[EntityTarget, FindOptionsWhere<RefreshSession & VerificationToken>]> = [
      [RefreshSession, { expiresAt: LessThan(now) }],
      [RefreshSession, { revokedAt: Not(IsNull()) }],
      [VerificationToken, { expiresAt: LessThan(now) }],
      [VerificationToken, { usedAt: LessThan(usedBefore) }],
    ];
    let removed = 0;
    for (const [entity, where] of batches) removed += await this.purgeWhere(entity, where);
    return removed;
  }

  /**
   * In batches by primary key: each unit of work reads a bounded set of ids through an index and
   * deletes exactly those rows, so no statement locks (or, on sql.js, holds) the whole table.
   */
  private async purgeWhere(
    entity: EntityTarget,
    where: FindOptionsWhere<RefreshSession & VerificationToken>,
  ): Promise<number> {
    let removed = 0;
    for (;;) {
      const deleted = await this.database.run(async (manager: EntityManager) => {
        const rows = await manager.find(entity, { select: { id: true }, where, take: BATCH });
        if (rows.length === 0) return 0;
        const result = await manager.delete(entity, { id: In(rows.map((row) => row.id)) });
        return result.affected ?? rows.length;
      });
      removed += deleted;
      if (deleted < BATCH) return removed;
    }
  }
}

type EntityTarget = typeof RefreshSession | typeof VerificationToken;
