import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, FindOptionsWhere, In, IsNull, LessThan, Not, Repository } from 'typeorm';
import { JwtConfig } from '../config/config.sections';
import { Database } from '../database/database.service';
import { RefreshSession } from './refresh-session.entity';
import { VerificationToken } from './verification-token.entity';

const EVERY_MS = 10 * 60_000;
/** Rotated sessions go much sooner: a refresh-heavy load adds one row per rotation. */
const RETIRED_EVERY_MS = 10_000;
/** Kept this long past the grace window, for clocks of several instances that disagree a little. */
const RETIRED_MARGIN_MS = 10_000;
const BATCH = 500;
/** Used emailed tokens are kept a day, for support questions ("did the link work?"). */
const USED_TOKEN_KEEP_MS = 24 * 3600_000;

/**
 * Deletes rows that can never be accepted again, so the tables do not grow without end: refresh
 * sessions past their expiry or revoked, emailed tokens past their expiry or used a day ago, and
 * (every few seconds) sessions rotated longer ago than the grace window. A copy of a rotated token
 * presented later is still recognised as reuse without its row: `RefreshTokensService` finds its
 * family alive and revokes it.
 */
@Injectable()
export class TokenJanitor implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(TokenJanitor.name);
  private readonly timers: NodeJS.Timeout[] = [];

  constructor(
    @InjectRepository(RefreshSession) private readonly sessions: Repository<RefreshSession>,
    @InjectRepository(VerificationToken) private readonly tokens: Repository<VerificationToken>,
    private readonly database: Database,
    private readonly jwt: JwtConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.every(EVERY_MS, () => this.purge());
    this.every(RETIRED_EVERY_MS, () => this.purgeRetired());
  }

  onApplicationShutdown(): void {
    for (const timer of this.timers) clearInterval(timer);
  }

  /** Returns how many rows went. */
  async purge(now = new Date()): Promise<number> {
    const usedBefore = new Date(now.getTime() - USED_TOKEN_KEEP_MS);
    const batches: Array<[Table, FindOptionsWhere<RefreshSession & VerificationToken>]> = [
      [this.sessions, { expiresAt: LessThan(now) }],
      [this.sessions, { revokedAt: Not(IsNull()) }],
      [this.sessions, { rotatedAt: LessThan(this.retiredBefore(now)) }],
      [this.tokens, { expiresAt: LessThan(now) }],
      [this.tokens, { usedAt: LessThan(usedBefore) }],
    ];
    let removed = 0;
    for (const [entity, where] of batches) removed += await this.purgeWhere(entity, where);
    return removed;
  }

  /** Sessions rotated before the grace window (and a margin): no copy of them can get a successor. */
  purgeRetired(now = new Date()): Promise<number> {
    return this.purgeWhere(this.sessions, { rotatedAt: LessThan(this.retiredBefore(now)) });
  }

  private retiredBefore(now: Date): Date {
    return new Date(now.getTime() - this.jwt.refreshReuseGrace * 1000 - RETIRED_MARGIN_MS);
  }

  /** A run still going when the next is due is not joined by another (a large first purge). */
  private every(ms: number, purge: () => Promise<number>): void {
    let running = false;
    const timer = setInterval(() => {
      if (running) return;
      running = true;
      purge()
        .catch((error: unknown) =>
          this.logger.warn(
            `Purge skipped: ${error instanceof Error ? error.message : String(error)}`,
          ),
        )
        .finally(() => {
          running = false;
        });
    }, ms);
    timer.unref();
    this.timers.push(timer);
  }

  /**
   * In batches by primary key: each unit of work reads a bounded set of ids through an index and
   * deletes exactly those rows, so no statement locks (or, on SQLite, holds) the whole table.
   */
  private async purgeWhere(
    table: Table,
    where: FindOptionsWhere<RefreshSession & VerificationToken>,
  ): Promise<number> {
    let removed = 0;
    for (;;) {
      const deleted = await this.database.run(async (manager: EntityManager) => {
        const repository = manager.withRepository(table as Repository<{ id: string }>);
        const rows = await repository.find({ select: { id: true }, where, take: BATCH });
        if (rows.length === 0) return 0;
        const result = await repository.delete({ id: In(rows.map((row) => row.id)) });
        return result.affected ?? rows.length;
      });
      removed += deleted;
      if (deleted < BATCH) return removed;
    }
  }
}

type Table = Repository<RefreshSession> | Repository<VerificationToken>;
