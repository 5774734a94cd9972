import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { EntityManager, LessThan, Not, IsNull } from 'typeorm';
import { Database } from '../database/database.service';
import { RefreshSession } from './refresh-session.entity';
import { VerificationToken } from './verification-token.entity';

const EVERY_MS = 10 * 60_000;
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
  purge(now = new Date()): Promise<number> {
    return this.database.run(async (manager: EntityManager) => {
      const expired = await manager.delete(RefreshSession, { expiresAt: LessThan(now) });
      const revoked = await manager.delete(RefreshSession, { revokedAt: Not(IsNull()) });
      const stale = await manager.delete(VerificationToken, { expiresAt: LessThan(now) });
      const used = await manager.delete(VerificationToken, {
        usedAt: LessThan(new Date(now.getTime() - USED_TOKEN_KEEP_MS)),
      });
      return [expired, revoked, stale, used].reduce(
        (sum, result) => sum + (result.affected ?? 0),
        0,
      );
    });
  }
}
