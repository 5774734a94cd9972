import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager, FindOneOptions } from 'typeorm';
import { AppException } from '../common/errors/app.exception';
import { isConnectionFailure, isTransientConflict } from './database-errors';

export type Work<T> = (manager: EntityManager) => Promise<T>;

/**
 * The one door to the database. sql.js is a single in-process connection with no locking: two
 * interleaved requests would share (and roll back) each other's transactions. There, all work is
 * queued and runs one unit at a time; on MySQL it runs concurrently on the pool. A lost connection
 * becomes `503 SERVICE_UNAVAILABLE` here, so callers never see driver errors.
 */
@Injectable()
export class Database {
  private readonly serialized: boolean;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly dataSource: DataSource) {
    this.serialized = dataSource.options.type === 'sqljs';
  }

  /** Reads and single-statement writes. */
  run<T>(work: Work<T>): Promise<T> {
    return this.schedule(() => work(this.dataSource.manager));
  }

  /**
   * Several statements that must all happen or none. A deadlock victim is run again (twice at
   * most, after a short random pause): revocations and rotations of one user can lock the same
   * rows in different orders. A third conflict answers 503.
   */
  transaction<T>(work: Work<T>): Promise<T> {
    return this.schedule(async () => {
      for (let attempt = 1; ; attempt++) {
        try {
          return await this.dataSource.transaction(work);
        } catch (error) {
          if (!isTransientConflict(error)) throw error;
          if (attempt === 3) {
            throw new AppException('SERVICE_UNAVAILABLE', {
              message: 'The database is busy, try again',
            });
          }
          await new Promise((resolve) => setTimeout(resolve, 5 + Math.random() * 20 * attempt));
        }
      }
    });
  }

  /**
   * `FOR UPDATE` on MySQL, so a read inside a transaction sees (and holds) the latest committed
   * row rather than the transaction's snapshot. sql.js needs none: its work is serialized.
   */
  get rowLock(): FindOneOptions['lock'] {
    return this.serialized ? undefined : { mode: 'pessimistic_write' };
  }

  async ping(): Promise<void> {
    await this.run((manager) => manager.query('SELECT 1'));
  }

  private async schedule<T>(task: () => Promise<T>): Promise<T> {
    try {
      if (!this.serialized) return await task();
      const result = this.queue.then(task);
      this.queue = result.catch(() => undefined);
      return await result;
    } catch (error) {
      if (isConnectionFailure(error)) {
        throw new AppException('SERVICE_UNAVAILABLE', {
          message: 'The database is unavailable, try again later',
        });
      }
      throw error;
    }
  }
}
