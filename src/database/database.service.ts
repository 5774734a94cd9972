import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { DataSource, EntityManager, FindOneOptions, QueryRunner } from 'typeorm';
import { BackgroundCheck } from '../common/background-check';
import { AppException } from '../common/errors/app.exception';
import { DatabaseConfig } from '../config/config.sections';
import { DeadlineExceeded, withinDeadline } from './connection-deadline';
import { isConnectionFailure, isTransientConflict } from './database-errors';
import { Lease, ScheduledDataSource, Scheduler } from './scheduled-data-source';
import { ServerProbe } from './server-probe';

export type Work<T> = (manager: EntityManager) => Promise<T>;

/** A `SELECT 1` slower than this means the server hangs (readiness answers within 1 s). */
const PROBE_LATE_MS = 500;
const PROBE_INTERVAL_MS = 1000;

/**
 * What runs once a transaction has committed, before the caller answers (a hook may return a
 * promise: telling other instances of a revocation).
 */
type CommitHooks = Array<() => void | Promise<void>>;

/**
 * The unit of work every database call runs in: a repository used directly (`users.findOneBy`,
 * `dataSource.transaction`) through ScheduledDataSource, several statements that commit together
 * and want the commit hooks through `transaction(manager => …)`. Inside a unit, work uses the
 * manager it is given. Embedded SQLite is one connection (TypeORM hands every caller the same query
 * runner): two interleaved requests would share (and roll back) each other's transactions. There,
 * all work is queued and runs one unit at a time, each statement taking microseconds; a background
 * loop over many rows is many short units with the event loop handed back between them
 * (inPacedBatches), so requests queue behind one batch at most. On MySQL work runs concurrently on
 * the pool. A lost connection becomes `503 SERVICE_UNAVAILABLE` here, so callers never see driver
 * errors, and so does a call (pool wait, statements, commit) that outlives DATABASE_TIMEOUT_MS. A
 * missed deadline has the server probed at once; while `SELECT 1` does not answer promptly every
 * call answers 503 without waiting, so a request spends at most one deadline on a server that hangs
 * or freezes, and the probe (once a second) lets work through again when it answers.
 */
@Injectable()
export class Database implements Scheduler, OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Database');
  private readonly serialized: boolean;
  private queue: Promise<unknown> = Promise.resolve();
  /** Units in the queue, the one running included (SQLite). */
  private queued = 0;
  /** Callbacks to run once the transaction a manager belongs to has committed. */
  private readonly commitHooks = new WeakMap<EntityManager, CommitHooks>();
  private readonly timeoutMs: number;
  private readonly probe: BackgroundCheck;
  /** MySQL: the probe's own connection, outside the pool. */
  private readonly server: ServerProbe | undefined;

  constructor(
    private readonly dataSource: DataSource,
    config: DatabaseConfig,
  ) {
    this.timeoutMs = config.timeoutMs;
    this.serialized = dataSource.options.type !== 'mysql';
    this.server = this.serialized
      ? undefined
      : new ServerProbe(config.url, Math.min(PROBE_LATE_MS, this.timeoutMs));
    // SQLite runs in process and cannot hang: there a probe is only late when the queue is long.
    this.probe = new BackgroundCheck(
      () => this.selectOne(),
      PROBE_INTERVAL_MS,
      this.serialized ? this.timeoutMs : PROBE_LATE_MS,
      // One line when an outage starts and one when it ends: the requests refused meanwhile
      // (503, readiness probes every second) are no news each.
      (up, reason) =>
        up
          ? this.logger.log('The database is reachable again')
          : this.logger.error(`The database is unreachable (${reason ?? 'no answer'})`),
    );
    if (dataSource instanceof ScheduledDataSource) dataSource.scheduleWith(this);
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.server?.open(this.timeoutMs);
    this.probe.start();
  }

  onApplicationShutdown(): void {
    this.probe.stop();
    this.server?.close();
  }

  /** The server answers promptly (readiness reports this). */
  get available(): boolean {
    return this.probe.isUp;
  }

  /**
   * The embedded store: every statement runs on the event loop (better-sqlite3 answers
   * synchronously), so nothing else is served while one runs. A loop over many rows hands the
   * loop back between its units of work (inPacedBatches).
   */
  get holdsEventLoop(): boolean {
    return this.serialized;
  }

  /** Reads and single-statement writes. */
  run<T>(work: Work<T>): Promise<T> {
    const deadline = Date.now() + this.timeoutMs;
    return this.schedule(deadline, () =>
      this.onConnection(deadline, (runner) => work(runner.manager)),
    );
  }

  /**
   * Several statements that must all happen or none, within one deadline. A deadlock victim is
   * run again (twice at most, after a short random pause): revocations and rotations of one user
   * can lock the same rows in different orders. A third conflict answers 503. The commit hooks
   * have run (and settled) when this returns.
   */
  async transaction<T>(work: Work<T>): Promise<T> {
    const deadline = Date.now() + this.timeoutMs;
    for (let attempt = 1; ; attempt++) {
      const hooks: CommitHooks = [];
      const progress = { committing: false, committed: false };
      try {
        const { result, after } = await this.schedule(deadline, async () => {
          const result = await this.onConnection(deadline, (runner) =>
            this.inTransaction(runner, hooks, progress, work),
          );
          // Started at once, inside the queue on SQLite, so caches are cleared before the next
          // unit of work; awaited below.
          return { result, after: Promise.all(hooks.map((hook) => Promise.resolve(hook()))) };
        });
        await after;
        return result;
      } catch (error) {
        // Sent and never answered: a failure of the commit hooks after it is not that.
        if (progress.committing && !progress.committed && isUnavailable(error)) {
          throw unconfirmed();
        }
        if (!isTransientConflict(error)) throw error;
        if (attempt === 3) {
          throw new AppException('SERVICE_UNAVAILABLE', {
            message: 'The database is busy, try again',
          });
        }
        await new Promise((resolve) => setTimeout(resolve, 5 + Math.random() * 20 * attempt));
      }
    }
  }

  /**
   * A plain repository call's hold (ScheduledDataSource): its statements run on `runner` as one
   * unit of work, from when `granted` settles until `released` does, under one deadline.
   */
  lease(runner: QueryRunner, released: Promise<void>): Lease {
    const deadline = Date.now() + this.timeoutMs;
    let grant!: () => void;
    const granted = new Promise<void>((resolve) => (grant = resolve));
    const ended = this.schedule(deadline, () =>
      this.onConnection(
        deadline,
        () => {
          grant();
          return released;
        },
        runner,
      ),
    );
    // Alone in the queue (the usual case), it is this call's turn at once.
    if (!this.serialized || this.queued <= 1) {
      return { granted: Promise.race([granted, ended]), ended };
    }
    // A call that waits for its turn past the deadline is told then (the queue skips it when its
    // turn comes): a plain call made inside a unit of work waits for that unit, which waits for it.
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(tooLate()), Math.max(0, deadline - Date.now()));
    });
    late.catch(() => undefined);
    return {
      granted: Promise.race([granted, ended, late]).finally(() => clearTimeout(timer)),
      ended,
    };
  }

  /** A statement of a plain call that failed: a lost connection is a 503 as everywhere. */
  failure(error: unknown): unknown {
    return isConnectionFailure(error) ? unavailable() : error;
  }

  /**
   * Runs `hook` once the transaction `manager` belongs to has committed (caches are cleared
   * after the change is visible, not before). Outside a transaction this is a programming error.
   */
  afterCommit(manager: EntityManager, hook: () => void | Promise<void>): void {
    this.hooksOf(manager).push(hook);
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

  /** A date as the entity columns store it: TypeORM's UTC text on SQLite, a Date for mysql2. */
  sqlDate(date: Date): Date | string {
    return this.serialized ? date.toISOString().slice(0, 23).replace('T', ' ') : date;
  }

  /**
   * `FOR UPDATE` on MySQL, so a read inside a transaction sees (and holds) the latest committed
   * row rather than the transaction's snapshot. SQLite needs none: its work is serialized.
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

  /**
   * The probe's `SELECT 1`, past the fail-fast check (it is what lifts it): on MySQL on its own
   * connection, on SQLite in turn with the other work.
   */
  private async selectOne(): Promise<boolean> {
    // Closed (shutting down, or by hand): nothing is served, whatever the server says.
    if (!this.dataSource.isInitialized) return false;
    if (this.server) return this.server.selectOne();
    const deadline = Date.now() + this.timeoutMs;
    await this.enqueue(() => this.onConnection(deadline, (runner) => runner.query('SELECT 1')));
    return true;
  }

  /** One unit at a time, in order (SQLite). */
  private enqueue<T>(task: () => Promise<T>): Promise<T> {
    this.queued += 1;
    const result = this.queue.then(task);
    this.queue = result.catch(() => undefined).then(() => (this.queued -= 1));
    return result;
  }

  /**
   * Runs `task` now (MySQL) or in turn (SQLite: a task whose deadline passed while it waited is
   * not started), unless the server is known not to answer, and turns lost connections and
   * missed deadlines into 503.
   */
  private async schedule<T>(deadline: number, task: () => Promise<T>): Promise<T> {
    // Not a probe per refused call: the probe runs once a second and after a real miss.
    if (!this.available) throw unavailable();
    try {
      if (!this.serialized) return await task();
      return await this.enqueue(() => {
        if (Date.now() > deadline) throw new DeadlineExceeded();
        return task();
      });
    } catch (error) {
      if (error instanceof DeadlineExceeded) {
        this.probe.checkNow();
        throw tooLate();
      }
      if (isConnectionFailure(error)) throw unavailable();
      throw error;
    }
  }

  /**
   * A connection of its own for the task (one pooled MySQL connection, given back afterwards),
   * under the deadline on MySQL. SQLite runs in process and cannot hang.
   */
  private async onConnection<T>(
    deadline: number,
    task: (runner: QueryRunner) => Promise<T>,
    runner: QueryRunner = this.unscheduledRunner(),
  ): Promise<T> {
    try {
      if (this.serialized) return await task(runner);
      return await withinDeadline(runner, runner.connect(), deadline, () => task(runner));
    } finally {
      // Harmless for a connection given up at its deadline: it has left the pool already.
      await runner.release();
    }
  }

  private unscheduledRunner(): QueryRunner {
    return this.dataSource instanceof ScheduledDataSource
      ? this.dataSource.createUnscheduledQueryRunner()
      : this.dataSource.createQueryRunner();
  }

  private async inTransaction<T>(
    runner: QueryRunner,
    hooks: CommitHooks,
    progress: { committing: boolean; committed: boolean },
    work: Work<T>,
  ): Promise<T> {
    await runner.startTransaction();
    this.commitHooks.set(runner.manager, hooks);
    try {
      const result = await work(runner.manager);
      progress.committing = true;
      await runner.commitTransaction();
      progress.committed = true;
      return result;
    } catch (error) {
      // A connection that failed rolls back on the server by itself.
      await runner.rollbackTransaction().catch(() => undefined);
      throw error;
    }
  }
}

function isUnavailable(error: unknown): boolean {
  return error instanceof AppException && error.code === 'SERVICE_UNAVAILABLE';
}

/**
 * The connection was lost, or the deadline passed, once COMMIT had been sent: the server may
 * have carried it out without the answer arriving, and no one can ask it about a connection that
 * is gone. Still a 503 (nothing is known to be done), but one that says the change may be there.
 */
function unconfirmed(): AppException {
  return new AppException('SERVICE_UNAVAILABLE', {
    message:
      'The database did not confirm the change: it may have been made, check before trying again',
  });
}

function tooLate(): AppException {
  return new AppException('SERVICE_UNAVAILABLE', {
    message: 'The database did not answer in time, try again later',
  });
}

function unavailable(): AppException {
  return new AppException('SERVICE_UNAVAILABLE', {
    message: 'The database is unavailable, try again later',
  });
}
