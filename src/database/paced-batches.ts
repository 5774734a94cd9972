import { performance } from 'node:perf_hooks';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { EntityManager } from 'typeorm';
import { Database } from './database.service';

/**
 * How long one batch may hold the event loop on the embedded store: a request that arrives
 * during a purge waits about this long for its turn, however large the backlog.
 */
const TURN_MS = 4;
/** The embedded store's first batch: small, until the time of a batch tells the size to take. */
const FIRST_SIZE = 50;
const MOST_SIZE = 2_000;
/** MySQL's driver hands the loop back at every statement: batches stay large and fixed there. */
const NETWORK_SIZE = 500;

/**
 * The size of the next batch. On the embedded store each batch's statements run on the event
 * loop, so a batch is sized by the time the last one held it: in proportion to reach TURN_MS,
 * but never more than twice the last (its time may have been a lucky one) nor less than a
 * quarter of it (a slow one may have met a garbage collection or a checkpoint).
 */
export class BatchPacer {
  private next: number;

  constructor(private readonly holdsLoop: boolean) {
    this.next = holdsLoop ? FIRST_SIZE : NETWORK_SIZE;
  }

  get size(): number {
    return this.next;
  }

  /** A batch of `size` rows held the loop for `ms`. */
  took(ms: number): void {
    if (!this.holdsLoop) return;
    const fitted = ms > 0 ? Math.floor((this.next * TURN_MS) / ms) : this.next * 2;
    const least = Math.max(1, Math.floor(this.next / 4));
    const most = Math.min(MOST_SIZE, this.next * 2);
    this.next = Math.min(most, Math.max(least, fitted));
  }

  /**
   * Between batches on the embedded store: the loop serves the I/O and timers that waited (the
   * requests that came meanwhile queue their database work ahead of the next batch).
   */
  async pause(): Promise<void> {
    if (this.holdsLoop) await nextTurn();
  }
}

/**
 * Runs `batch` until it handles fewer rows than it was asked to (it is done), each call one unit
 * of work of its own (a purge never holds the embedded store's single connection between
 * batches), paced by BatchPacer. Every background loop over rows (a purge, a backfill, a sweep)
 * goes through this. Returns how many rows were handled.
 */
export async function inPacedBatches(
  database: Database,
  batch: (manager: EntityManager, size: number) => Promise<number>,
): Promise<number> {
  const pacer = new BatchPacer(database.holdsEventLoop);
  let handled = 0;
  for (;;) {
    const size = pacer.size;
    const { rows, ms } = await database.run(async (manager) => {
      // Timed inside the unit: the wait for its turn behind requests is not the batch's.
      const started = performance.now();
      const rows = await batch(manager, size);
      return { rows, ms: performance.now() - started };
    });
    handled += rows;
    if (rows < size) return handled;
    pacer.took(ms);
    await pacer.pause();
  }
}
