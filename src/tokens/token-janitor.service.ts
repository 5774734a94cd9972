import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { LessThan, Repository } from 'typeorm';
import { PurgeSchedule, purgeInBatches } from '../database/batch-purge';
import { Database } from '../database/database.service';
import { VerificationToken } from './verification-token.entity';

const EVERY_MS = 10 * 60_000;
/**
 * Ended emailed tokens (expired, used or retired) are kept a week: a link opened late can still
 * be told what became of it (expired, used, replaced), and support can answer "did the link
 * work?".
 */
const ENDED_TOKEN_KEEP_MS = 7 * 24 * 3600_000;

/**
 * Deletes emailed tokens that can never be accepted again, so the table does not grow without
 * end: expired or used a week ago. (Refresh sessions are SessionJanitor's.)
 */
@Injectable()
export class TokenJanitor implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly schedule = new PurgeSchedule(new Logger(TokenJanitor.name));

  constructor(
    @InjectRepository(VerificationToken) private readonly tokens: Repository<VerificationToken>,
    private readonly database: Database,
  ) {}

  onApplicationBootstrap(): void {
    this.schedule.every(EVERY_MS, () => this.purge());
  }

  onApplicationShutdown(): void {
    this.schedule.stop();
  }

  /** Returns how many rows went. */
  async purge(now = new Date()): Promise<number> {
    const endedBefore = new Date(now.getTime() - ENDED_TOKEN_KEEP_MS);
    let removed = 0;
    for (const where of [{ expiresAt: LessThan(endedBefore) }, { usedAt: LessThan(endedBefore) }]) {
      removed += await purgeInBatches(this.database, this.tokens, where);
    }
    return removed;
  }
}
