import { Injectable, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { DataSource, EntityManager, FindOneOptions } from 'typeorm';
import { AppException } from '../common/errors/app.exception';
import { isConnectionFailure, isTransientConflict } from './database-errors';
import { SqljsPersistence } from './sqljs-persistence';

export type Work<T> = (manager: EntityManager) => Promise<T>;

/** What runs once a transaction has committed, and whether it must be on disk first (sql.js). */
interface CommitHooks {
  run: Array<() => void | Promise<void>>;
  durable: boolean;
}

/**
 * The one door to the database. sql.js is a single in-process connection with no locking: two
 * interleaved requests would share (and roll back) each other's transactions. There, all work is
 * queued and runs one unit at a time; on MySQL it runs concurrently on the pool. A lost connection
 * becomes `503 SERVICE_UNAVAILABLE` here, so callers never see driver errors.
 */
@Injectable()
export class Database implements OnModuleInit, OnApplicationShutdown {
  private readonly serialized: boolean;
  private readonly persistence: SqljsPersistence | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  /** Callbacks to run once the transaction a manager belongs to has committed. */
  private readonly commitHooks = new WeakMap<EntityManager, CommitHooks>();

  constructor(private readonly dataSource: DataSource) {
    this.serialized = dataSource.options.type === 'sqljs';
    const location = dataSource.options.type === 'sqljs' ? dataSource.options.location : undefined;
    this.persistence = location
      ? new SqljsPersistence(dataSource, location, (task) =>
          this.enqueue(() => Promise.resolve().then(task)),
        )
      : undefined;
    // The migrations that just ran at boot.
    this.persistence?.schedule();
  }

  /**
   * sql.js keeps its file in WebAssembly memory, and durability comes from SqljsPersistence's
   * saves: a rollback journal written (and deleted) beside it on every transaction only costs time.
   * The journal stays in memory, so a rollback still works.
   */
  async onModuleInit(): Promise<void> {
    if (!this.serialized) return;
    await this.run(async (manager) => {
      await manager.query('PRAGMA journal_mode = MEMORY');
      await manager.query('PRAGMA synchronous = OFF');
      // The whole file already sits in memory; a large page cache would only hold a second copy.
      await manager.query('PRAGMA cache_size = -512');
    });
  }

  async onApplicationShutdown(): Promise<void> {
    await this.persistence?.flush();
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
  async transaction<T>(work: Work<T>): Promise<T> {
    const { result, written } = await this.schedule(async () => {
      for (let attempt = 1; ; attempt++) {
        const hooks: CommitHooks = { run: [], durable: false };
        try {
          const result = await this.dataSource.transaction((manager) => {
            this.commitHooks.set(manager, hooks);
            return work(manager);
          });
          await Promise.all(hooks.run.map(async (hook) => hook()));
          // A change to a user (logout, reset, revocation) is on disk before it is acknowledged:
          // a crash right after must not bring a revoked token back. The snapshot is taken here,
          // inside the queue; the file is written while other requests go on.
          const written = hooks.durable ? this.persistence?.persist() : undefined;
          return { result, written };
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
    await written;
    return result;
  }

  /**
   * Runs `hook` once the transaction `manager` belongs to has committed (caches are cleared
   * after the change is visible, not before). `transaction()` returns once every hook has settled,
   * so what a hook tells others is said before the caller answers. Outside a transaction this is
   * a programming error.
   */
  afterCommit(manager: EntityManager, hook: () => void | Promise<void>): void {
    this.hooksOf(manager).run.push(hook);
  }

  /**
   * The transaction must be on disk before the caller answers (the embedded SQLite saves in
   * batches otherwise): a revocation a crash could undo would bring a revoked token back.
   */
  durable(manager: EntityManager): void {
    this.hooksOf(manager).durable = true;
  }

  private hooksOf(manager: EntityManager): CommitHooks {
    const hooks = this.commitHooks.get(manager);
    if (!hooks) throw new Error('Commit hooks need a manager from Database.transaction()');
    return hooks;
  }

  /**
   * A write in plain SQL (`?` placeholders, unquoted names: both dialects), returning how many
   * rows it changed. For the hottest statements only: TypeORM's query builder costs more CPU than
   * the statement itself there. Runs inside the transaction `manager` belongs to.
   */
  async write(manager: EntityManager, sql: string, parameters: unknown[]): Promise<number> {
    if (!manager.queryRunner) throw new Error('write needs a manager from Database.transaction()');
    const result = await manager.queryRunner.query(sql, parameters, true);
    return result.affected ?? 0;
  }

  /** A date as the entity columns store it: TypeORM's UTC text on sql.js, a Date for mysql2. */
  sqlDate(date: Date): Date | string {
    return this.serialized ? date.toISOString().slice(0, 23).replace('T', ' ') : date;
  }

  /**
   * `FOR UPDATE` on MySQL, so a read inside a transaction sees (and holds) the latest committed
   * row rather than the transaction's snapshot. sql.js needs none: its work is serialized.
   */
  get rowLock(): FindOneOptions['lock'] {
    return this.serialized ? undefined : { mode: 'pessimistic_write' };
  }

  /**
   * The clause for a shared row lock: waits for a writer of the row, lets other readers through.
   * `LOCK IN SHARE MODE` is understood by MySQL 5.7 and 8 and by MariaDB; TypeORM would write
   * `FOR SHARE` for any server whose version number is 8 or more, which MariaDB 10/11 refuses.
   */
  get sharedLockClause(): string {
    return this.serialized ? '' : ' LOCK IN SHARE MODE';
  }

  async ping(): Promise<void> {
    await this.run((manager) => manager.query('SELECT 1'));
  }

  /** One unit at a time, in order (sql.js). */
  private enqueue<T>(task: () => Promise<T>): Promise<T> {
    const result = this.queue.then(task);
    this.queue = result.catch(() => undefined);
    return result;
  }

  private async schedule<T>(task: () => Promise<T>): Promise<T> {
    try {
      if (!this.serialized) return await task();
      const result = this.enqueue(task);
      this.persistence?.schedule();
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
