import { DataSource, EntityManager, QueryRunner, ReplicationMode } from 'typeorm';
import { IsolationLevel } from 'typeorm/driver/types/IsolationLevel';

type Work<T> = (manager: EntityManager) => Promise<T>;

/** One plain call's hold on the database: the queue's turn (SQLite), a connection, the deadline. */
export interface Lease {
  /** Settles when the call may run its statements (rejects when it never may: 503). */
  granted: Promise<void>;
  /** Settles once the hold is given back (rejects at the deadline or on a lost connection). */
  ended: Promise<void>;
}

/** What the data source hands plain calls to: Database (deadline, queue, retries, 503). */
export interface Scheduler {
  /** Holds one unit of work on `runner` from its first statement until `released` settles. */
  lease(runner: QueryRunner, released: Promise<void>): Lease;
  transaction<T>(work: Work<T>): Promise<T>;
  /** What a statement's failure becomes for the caller (a lost connection: 503). */
  failure(error: unknown): unknown;
}

/**
 * The DataSource TypeOrmModule provides: a repository used directly (`users.findOneBy(…)`,
 * `dataSource.transaction(…)`) runs as Database's units of work do, so it gets the deadline,
 * SQLite's one-at-a-time queue, deadlock retries and the 503. Inside a unit of work the work
 * uses the manager it is given (a plain call there is a unit of its own: on SQLite it waits for
 * the one it is inside, and answers 503 at the deadline). No AsyncLocalStorage tells them apart:
 * on Node 20 it puts async hooks on every promise (docs/performance.md).
 */
export class ScheduledDataSource extends DataSource {
  private scheduler: Scheduler | undefined;

  /** Database, once it exists (the data source is built and initialised before it). */
  scheduleWith(scheduler: Scheduler): void {
    this.scheduler = scheduler;
  }

  /** A runner straight on the driver, for Database's own units of work. */
  createUnscheduledQueryRunner(mode?: ReplicationMode): QueryRunner {
    return super.createQueryRunner(mode);
  }

  private migrating = false;

  override async runMigrations(
    ...args: Parameters<DataSource['runMigrations']>
  ): ReturnType<DataSource['runMigrations']> {
    this.migrating = true;
    try {
      return await super.runMigrations(...args);
    } finally {
      this.migrating = false;
    }
  }

  override createQueryRunner(mode?: ReplicationMode): QueryRunner {
    const runner = super.createQueryRunner(mode);
    // Migrations run while the source opens, before anything else may use it.
    return this.scheduler && !this.migrating
      ? scheduledRunner(this, runner, this.scheduler)
      : runner;
  }

  override createEntityManager(queryRunner?: QueryRunner): EntityManager {
    // The data source's own manager (repositories' too) is the one whose transactions go through
    // Database; a runner's manager belongs to a transaction already.
    return queryRunner ? super.createEntityManager(queryRunner) : new ScheduledEntityManager(this);
  }

  /** Database, once it schedules this data source's plain calls. */
  get scheduledBy(): Scheduler | undefined {
    return this.scheduler;
  }
}

class ScheduledEntityManager extends EntityManager {
  override transaction<T>(work: Work<T>): Promise<T>;
  override transaction<T>(isolation: IsolationLevel, work: Work<T>): Promise<T>;
  override transaction<T>(first: IsolationLevel | Work<T>, second?: Work<T>): Promise<T> {
    const scheduler = (this.connection as ScheduledDataSource).scheduledBy;
    if (typeof first === 'function') {
      return scheduler ? scheduler.transaction(first) : super.transaction(first);
    }
    // An isolation level Database does not set: TypeORM's own, on a scheduled runner.
    return super.transaction(first, second!);
  }
}

/**
 * `runner` as one unit of work: its first statement waits for a lease (SQLite's turn, a pooled
 * connection within the deadline), its release ends it; a lease that fails (the deadline, a lost
 * connection) fails the statement under way with a 503.
 */
function scheduledRunner(
  dataSource: DataSource,
  runner: QueryRunner,
  scheduler: Scheduler,
): QueryRunner {
  let lease: Lease | undefined;
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let failed: Promise<never> | undefined;
  let granted = false;
  let manager: EntityManager | undefined;

  const within = async <T>(call: () => Promise<T>): Promise<T> => {
    if (!lease) {
      lease = scheduler.lease(runner, released);
      failed = lease.ended.then(() => new Promise<never>(() => undefined));
      failed.catch(() => undefined);
    }
    await lease.granted;
    granted = true;
    try {
      return await Promise.race([call(), failed!]);
    } catch (error) {
      throw scheduler.failure(error);
    }
  };

  const proxy: QueryRunner = new Proxy(runner, {
    get(target, property, receiver) {
      switch (property) {
        // SQLite's runner is shared: its transaction state is this call's only once it is its turn.
        case 'connect':
        case 'query':
        case 'stream':
        case 'startTransaction':
        case 'commitTransaction':
        case 'rollbackTransaction': {
          const method = Reflect.get(target, property) as (...args: unknown[]) => Promise<unknown>;
          // Once it is this call's turn the runner is its own: what the method calls runs on it
          // directly, without this proxy's cost per property.
          return (...args: unknown[]) => within(() => method.apply(target, args));
        }
        case 'release':
          return async () => {
            if (!lease) return target.release();
            release();
            // A lease never granted is still queued (behind the unit that made this call, maybe):
            // the queue skips it when its turn comes.
            if (granted) await lease.ended.catch(() => undefined);
          };
        case 'isTransactionActive':
          return granted && target.isTransactionActive;
        case 'manager':
          // Work through the runner's manager stays on this lease.
          return (manager ??= dataSource.createEntityManager(proxy));
        default:
          return Reflect.get(target, property, receiver) as unknown;
      }
    },
  });
  return proxy;
}
