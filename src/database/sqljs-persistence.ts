import { mkdirSync } from 'node:fs';
import { rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { MessageChannel } from 'node:worker_threads';
import { Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';

/** How long writes may gather before the file is saved. */
const SAVE_DELAY_MS = 1000;

interface SqljsDatabase {
  export(): Uint8Array;
  exec(sql: string): Array<{ values: unknown[][] }>;
}

/**
 * Saves the embedded sql.js database to its file. TypeORM's own autosave exports the whole
 * database after every statement, which makes every write cost as much as the database is large;
 * here writes made within SAVE_DELAY_MS are saved together, atomically (temporary file, then
 * rename) and readable by the owner only. A crash loses at most the last second of logins and
 * refreshes; a normal stop saves everything.
 *
 * Only the snapshot (`export`) needs the database; the file is written off the event loop, so
 * requests keep being served while megabytes go to disk. One write at a time, one snapshot in
 * memory at a time: changes made during a write share the one snapshot taken after it, and the
 * file never goes back to an older state.
 */
export class SqljsPersistence {
  private readonly logger = new Logger('SqliteFile');
  private timer: NodeJS.Timeout | undefined;
  private snapshotChanges = -1;
  /** The write under way. */
  private inFlight: Promise<void> | undefined;
  /** The write that will start after it, with a snapshot of everything changed meanwhile. */
  private followUp: Promise<void> | undefined;

  /**
   * @param exclusive runs a task when no other database work is in flight (an export in the
   * middle of a transaction would save half of it).
   */
  constructor(
    private readonly dataSource: DataSource,
    private readonly location: string,
    private readonly exclusive: (task: () => void) => Promise<void>,
  ) {
    mkdirSync(dirname(location), { recursive: true });
  }

  /** Called after every unit of work; cheap when a save is already pending. */
  schedule(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      // A failed write is logged where it fails.
      this.exclusive(() => void this.persist().catch(() => undefined)).catch((error: unknown) =>
        this.failed(error),
      );
    }, SAVE_DELAY_MS);
    this.timer.unref();
  }

  /** Saves whatever is pending, now (a normal stop). */
  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    // A failed write is logged where it fails; the stop goes on with the previous file.
    await this.holding(() => this.persist().catch(() => undefined));
  }

  /**
   * Settles once every change made so far is on disk. The caller must hold the database (run
   * inside the serialized queue) and may await the result after letting the database go:
   * `Database` does so for a commit that must not be lost (logout, reset) before answering it.
   */
  persist(): Promise<void> {
    if (!this.inFlight) return this.startWrite();
    this.followUp ??= this.inFlight
      .catch(() => undefined)
      .then(() =>
        this.holding(() => {
          // Commits from here on need a later snapshot than this one.
          this.followUp = undefined;
          return this.startWrite();
        }),
      );
    return this.followUp;
  }

  /** Starts `save` once the database is held, and settles when the write it started does. */
  private async holding(save: () => Promise<void>): Promise<void> {
    let written: Promise<void> = Promise.resolve();
    await this.exclusive(() => {
      written = save();
    });
    return written;
  }

  /** Takes the snapshot now (the caller holds the database) and writes it. */
  private startWrite(): Promise<void> {
    const bytes = this.snapshot();
    if (bytes === undefined) return Promise.resolve();
    const write = this.write(bytes)
      .catch((error: unknown) => {
        // The file keeps its previous content; the next save takes a new snapshot.
        this.snapshotChanges = -1;
        this.failed(error);
        throw error;
      })
      .finally(() => {
        if (this.inFlight === write) this.inFlight = undefined;
      });
    this.inFlight = write;
    return write;
  }

  private snapshot(): Uint8Array | undefined {
    if (!this.dataSource.isInitialized) return undefined;
    const database = (this.dataSource.driver as unknown as { databaseConnection: SqljsDatabase })
      .databaseConnection;
    const changes = Number(database.exec('SELECT total_changes()')[0]?.values[0]?.[0] ?? 0);
    if (changes === this.snapshotChanges) return undefined;
    this.snapshotChanges = changes;
    return database.export();
  }

  private async write(bytes: Uint8Array): Promise<void> {
    const temporary = `${this.location}.tmp`;
    try {
      await writeFile(temporary, bytes, { mode: 0o600 });
      await rename(temporary, this.location);
    } finally {
      release(bytes);
    }
  }

  private failed(error: unknown): void {
    this.logger.error(`Saving the database file failed: ${String(error)}`);
  }
}

/**
 * Frees a snapshot's memory now. Left to the garbage collector, snapshots (each as large as the
 * database) piled up while the process was quiet, 20 MB and more with a 6 MB database, because V8
 * collects ArrayBuffers only when its heap asks for a collection. Transferring the buffer into a
 * message that is never received detaches it, and closing the channel drops the message and its
 * memory.
 */
function release(bytes: Uint8Array): void {
  if (!(bytes.buffer instanceof ArrayBuffer)) return;
  const { port1, port2 } = new MessageChannel();
  port1.postMessage(null, [bytes.buffer]);
  port1.close();
  port2.close();
}
