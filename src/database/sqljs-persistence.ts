import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';

/** How long writes may gather before the file is saved. */
const SAVE_DELAY_MS = 200;

interface SqljsDatabase {
  export(): Uint8Array;
  exec(sql: string): Array<{ values: unknown[][] }>;
}

/**
 * Saves the embedded sql.js database to its file. TypeORM's own autosave exports the whole
 * database after every statement, which makes every write cost as much as the database is large;
 * here writes made within SAVE_DELAY_MS are saved together, atomically (temporary file, then
 * rename) and readable by the owner only. A crash loses at most that last fraction of a second;
 * a normal stop saves everything.
 */
export class SqljsPersistence {
  private readonly logger = new Logger('SqliteFile');
  private timer: NodeJS.Timeout | undefined;
  private savedChanges = -1;

  /**
   * @param exclusive runs a task when no other database work is in flight (an export in the
   * middle of a transaction would save half of it).
   */
  constructor(
    private readonly dataSource: DataSource,
    private readonly location: string,
    private readonly exclusive: (task: () => void) => Promise<void>,
  ) {}

  /** Called after every unit of work; cheap when a save is already pending. */
  schedule(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.exclusive(() => this.save()).catch((error: unknown) => {
        // The file keeps its previous content; the next write schedules another save.
        this.logger.error(`Saving the database file failed: ${String(error)}`);
      });
    }, SAVE_DELAY_MS);
    this.timer.unref();
  }

  /** Saves whatever is pending, now (a normal stop). */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    return this.exclusive(() => this.save());
  }

  /**
   * Writes the file if anything changed since the last save. The caller must hold the database
   * (run inside the serialized queue): `Database` calls it directly after a commit that must not
   * be lost (logout, reset), before the answer goes out.
   */
  save(): void {
    if (!this.dataSource.isInitialized) return;
    const database = (this.dataSource.driver as unknown as { databaseConnection: SqljsDatabase })
      .databaseConnection;
    const changes = Number(database.exec('SELECT total_changes()')[0]?.values[0]?.[0] ?? 0);
    if (changes === this.savedChanges) return;
    mkdirSync(dirname(this.location), { recursive: true });
    const temporary = `${this.location}.tmp`;
    writeFileSync(temporary, database.export(), { mode: 0o600 });
    renameSync(temporary, this.location);
    this.savedChanges = changes;
  }
}
