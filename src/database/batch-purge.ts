import { Logger } from '@nestjs/common';
import { FindOptionsWhere, In, Repository } from 'typeorm';
import { Database } from './database.service';
import { inPacedBatches } from './paced-batches';

/**
 * Deletes the rows `where` matches, in batches by primary key: each unit of work reads a bounded
 * set of ids through an index and deletes exactly those rows, so no statement locks (or, on
 * SQLite, holds) the whole table, and the event loop is handed back between batches
 * (inPacedBatches). Returns how many rows went.
 */
export async function purgeInBatches<T extends { id: string }>(
  database: Database,
  repository: Repository<T>,
  where: FindOptionsWhere<T>,
): Promise<number> {
  let removed = 0;
  await inPacedBatches(database, async (manager, size) => {
    const rows = manager.withRepository(repository);
    const ids = await rows.find({ select: { id: true } as never, where, take: size });
    if (ids.length === 0) return 0;
    const result = await rows.delete({ id: In(ids.map((row) => row.id)) } as never);
    removed += result.affected ?? ids.length;
    // Done when fewer were found than asked, not deleted: another purge may have taken some.
    return ids.length;
  });
  return removed;
}

/**
 * Purges on timers: a run still going when the next is due is not joined by another (a large
 * first purge), and a failed run is a warning, not a crash (the next one tries again).
 */
export class PurgeSchedule {
  private readonly timers: NodeJS.Timeout[] = [];

  constructor(private readonly logger: Logger) {}

  every(ms: number, purge: () => Promise<number>): void {
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

  stop(): void {
    for (const timer of this.timers) clearInterval(timer);
  }
}
