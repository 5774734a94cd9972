import { Injectable, OnApplicationShutdown } from '@nestjs/common';
import { join } from 'node:path';
import { Piscina } from 'piscina';
import { DataSource } from 'typeorm';
import { AppException } from '../common/errors/app.exception';
import { DatabaseConfig } from '../config/config.sections';
import { sqliteFile } from './data-source.options';
import { Database } from './database.service';

/** One read: plain SQL with `?` placeholders. */
export interface ReadStatement {
  sql: string;
  params: unknown[];
}

export type Row = Record<string, unknown>;

interface ReadTask {
  file: string;
  timeoutMs: number;
  statements: ReadStatement[];
}

/**
 * Reads that may take long (an administrator's listings and searches), kept off the event loop.
 * On MySQL/MariaDB they are ordinary pooled queries under the deadline (the driver is
 * asynchronous). On an embedded SQLite file they run in a worker thread on a read-only
 * connection of its own: better-sqlite3 answers synchronously, so on the service's connection
 * one such read would hold every other request until it ended (WAL lets the reader run beside
 * the writer). An in-memory database (the test suites) cannot be opened twice: there they run
 * in turn with the other work, as every query does.
 */
@Injectable()
export class LongReads implements OnApplicationShutdown {
  readonly dialect: 'mysql' | 'sqlite';
  private readonly file: string | undefined;
  private readonly timeoutMs: number;
  private pool: Piscina<ReadTask, Row[][]> | undefined;

  constructor(
    private readonly database: Database,
    dataSource: DataSource,
    config: DatabaseConfig,
  ) {
    this.dialect = dataSource.options.type === 'mysql' ? 'mysql' : 'sqlite';
    this.file = sqliteFile(config.url);
    this.timeoutMs = config.timeoutMs;
  }

  /** Whether these reads leave the event loop free on this store (in memory they cannot). */
  get offLoop(): boolean {
    return this.dialect === 'mysql' || this.file !== undefined;
  }

  async onApplicationShutdown(): Promise<void> {
    await this.pool?.destroy();
  }

  /** The rows of each statement, in order; on the embedded store all read in one snapshot. */
  async all(statements: ReadStatement[]): Promise<Row[][]> {
    if (!this.file) {
      return this.database.run(async (manager) => {
        const results: Row[][] = [];
        for (const { sql, params } of statements) results.push(await manager.query(sql, params));
        return results;
      });
    }
    try {
      return await this.threads().run(
        { file: this.file, timeoutMs: this.timeoutMs, statements },
        { signal: AbortSignal.timeout(this.timeoutMs) },
      );
    } catch (error) {
      // Past the deadline (DATABASE_TIMEOUT_MS) the thread is stopped and the caller told, as
      // for any database call; a read queued behind it is refused the same way.
      if (error instanceof Error && /abort|Terminating worker/i.test(error.name + error.message)) {
        throw new AppException('SERVICE_UNAVAILABLE', {
          message: 'The database did not answer in time, try again later',
        });
      }
      throw error;
    }
  }

  /**
   * Started at the first read, not at boot: most instances never list users. One thread: an
   * administrator's reads queue behind each other, never beside every core's other work.
   */
  private threads(): Piscina<ReadTask, Row[][]> {
    this.pool ??= new Piscina<ReadTask, Row[][]>({
      filename: join(__dirname, 'long-reads.worker.js'),
      minThreads: 0,
      maxThreads: 1,
      // Kept while an administrator pages (each start costs a thread and a connection).
      idleTimeout: 10 * 60_000,
      // The worker is plain JavaScript: none of the parent's flags belong in it.
      execArgv: [],
      // Rows of a page are a few kilobytes; SQLite's page cache is outside the heap.
      resourceLimits: { maxYoungGenerationSizeMb: 4, maxOldGenerationSizeMb: 32 },
    });
    return this.pool;
  }
}
