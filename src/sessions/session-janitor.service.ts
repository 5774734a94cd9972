import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { IsNull, LessThan, Not, Repository } from 'typeorm';
import { JwtConfig } from '../config/config.sections';
import { PurgeSchedule, purgeInBatches } from '../database/batch-purge';
import { Database } from '../database/database.service';
import { RefreshSession } from './refresh-session.entity';

const EVERY_MS = 10 * 60_000;
/** Rotated sessions go much sooner: a refresh-heavy load adds one row per rotation. */
const RETIRED_EVERY_MS = 10_000;
/** Kept this long past the grace window, for clocks of several instances that disagree a little. */
const RETIRED_MARGIN_MS = 10_000;

/**
 * Deletes refresh-session rows that can never be accepted again, so the table does not grow
 * without end: past their expiry, revoked, and (every few seconds) rotated longer ago than the
 * grace window. A copy of a rotated token presented later is still recognised as reuse without
 * its row: RefreshRotation finds its family alive and revokes it.
 */
@Injectable()
export class SessionJanitor implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly schedule = new PurgeSchedule(new Logger(SessionJanitor.name));

  constructor(
    @InjectRepository(RefreshSession) private readonly sessions: Repository<RefreshSession>,
    private readonly database: Database,
    private readonly jwt: JwtConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.schedule.every(EVERY_MS, () => this.purge());
    this.schedule.every(RETIRED_EVERY_MS, () => this.purgeRetired());
  }

  onApplicationShutdown(): void {
    this.schedule.stop();
  }

  /** Returns how many rows went. */
  async purge(now = new Date()): Promise<number> {
    let removed = 0;
    for (const where of [
      { expiresAt: LessThan(now) },
      { revokedAt: Not(IsNull()) },
      { rotatedAt: LessThan(this.retiredBefore(now)) },
    ]) {
      removed += await purgeInBatches(this.database, this.sessions, where);
    }
    return removed;
  }

  /** Sessions rotated before the grace window (and a margin): no copy of them can get a successor. */
  purgeRetired(now = new Date()): Promise<number> {
    return purgeInBatches(this.database, this.sessions, {
      rotatedAt: LessThan(this.retiredBefore(now)),
    });
  }

  private retiredBefore(now: Date): Date {
    return new Date(now.getTime() - this.jwt.refreshReuseGrace * 1000 - RETIRED_MARGIN_MS);
  }
}
