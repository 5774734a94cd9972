import { Injectable, OnApplicationShutdown } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import Sqlite from 'better-sqlite3';
import { closeSync, openSync } from 'node:fs';
import { DataSourceOptions } from 'typeorm';

/**
 * One serving instance per embedded database file. The service's database work is serialised
 * on one connection in one process, its rate limits and user cache are in process memory: a
 * second instance on the same file would serve beside it with none of that shared.
 *
 * The lock is SQLite's own: a file beside the database (`auth.sqlite.lock`), opened as a
 * database in exclusive locking mode, which holds the operating system's advisory lock (fcntl)
 * on it until the connection closes. The kernel drops the lock when the process ends however it
 * ends, so a start after `kill -9` or a crash is never refused by a stale lock, and two starts at
 * the same moment cannot both win. It is separate from the database file, whose WAL locks stay as
 * they were: the commands docs/operating.md lets run beside the service (`users:promote`, the
 * migration CLI) do not take it.
 *
 * Only a server takes it (an app built with an HTTP adapter, as `npm start` does), before the
 * database is opened, so a refused instance runs no migration. A script's application context
 * (`users:promote`) and a test's compiled module do not.
 */
@Injectable()
export class InstanceLock implements OnApplicationShutdown {
  private held: Sqlite.Database | undefined;

  constructor(private readonly adapterHost: HttpAdapterHost) {}

  /** Takes the lock for this data source's file, or throws the line that says who has it. */
  holdFor(options: DataSourceOptions): void {
    if (options.type !== 'better-sqlite3' || options.database === ':memory:') return;
    if (!this.adapterHost.httpAdapter || this.held) return;
    const file = `${options.database}.lock`;
    // Readable by its owner only, as the database; it holds no data.
    closeSync(openSync(file, 'a', 0o600));
    // No busy timeout: a lock held by a running instance is not going to be released.
    const connection = new Sqlite(file, { timeout: 0 });
    try {
      connection.pragma('locking_mode = EXCLUSIVE');
      // No journal file beside it: there is nothing to roll back.
      connection.pragma('journal_mode = MEMORY');
      connection.exec('BEGIN EXCLUSIVE; COMMIT');
    } catch (error) {
      connection.close();
      if ((error as { code?: string }).code !== 'SQLITE_BUSY') throw error;
      throw new Error(
        `another instance of the service is running on ${options.database} (it holds ${file}); ` +
          'the embedded store serves one instance: stop the other, or use MySQL/MariaDB for several',
      );
    }
    this.held = connection;
  }

  /** After the requests in flight: a new instance may start as this one closes its database. */
  onApplicationShutdown(): void {
    this.held?.close();
    this.held = undefined;
  }
}
