import { readFileSync, rmSync, writeFileSync } from 'node:fs';

/** Raised when another live process already holds the embedded SQLite file. */
export class SqliteInUseError extends Error {}

/**
 * The embedded SQLite store belongs to one process: sql.js holds the whole database in memory and
 * writes it back, so a second process on the same file would overwrite the first's changes, or
 * have its own overwritten (an operator's command run while the service is up). The owner leaves
 * its pid beside the file; a process that finds a live one there refuses to start on it. A pid
 * left by a crash is not alive, and is taken over.
 */
export class SqliteOwner {
  private constructor(private readonly path: string) {}

  static claim(location: string): SqliteOwner {
    const path = `${location}.pid`;
    const holder = readHolder(path);
    if (holder !== undefined && holder !== process.pid && isAlive(holder)) {
      throw new SqliteInUseError(
        `${location} is in use by process ${holder}: the embedded SQLite store belongs to one ` +
          'process at a time (stop that one first, or use MySQL/MariaDB for several)',
      );
    }
    writeFileSync(path, `${process.pid}\n`, { mode: 0o600 });
    return new SqliteOwner(path);
  }

  /** At a normal stop: the next process finds the file free. */
  release(): void {
    if (readHolder(this.path) === process.pid) rmSync(this.path, { force: true });
  }
}

function readHolder(path: string): number | undefined {
  try {
    const pid = Number(readFileSync(path, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, under another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
