import Sqlite from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { AppException } from '../common/errors/app.exception';
import { DatabaseConfig } from '../config/config.sections';
import { Database } from './database.service';
import { LongReads } from './long-reads.service';

/**
 * A count to five million, most of a second: a read that outlives the deadline here. Finite:
 * a thread given up still runs its statement to the end (SQLite is not interrupted).
 */
const SLOW =
  'WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 5000000) ' +
  'SELECT max(i) FROM n';

describe('LongReads on an embedded SQLite file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'long-reads-'));
  const file = join(dir, 'auth.sqlite');
  let writer: Sqlite.Database;
  let reads: LongReads;

  beforeAll(() => {
    writer = new Sqlite(file);
    writer.pragma('journal_mode = WAL');
    writer.exec('CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT)');
    writer.prepare('INSERT INTO items (name) VALUES (?), (?), (?)').run('a', 'b', 'c');
    const config = { url: `sqlite:${file}`, poolSize: 1, timeoutMs: 200 } as DatabaseConfig;
    const dataSource = { options: { type: 'better-sqlite3' } } as DataSource;
    // The service's connection is never used for a file: the worker opens its own.
    reads = new LongReads({} as Database, dataSource, config);
  });
  afterAll(async () => {
    await reads.onApplicationShutdown();
    writer.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers the rows of each statement, with their parameters bound', async () => {
    expect(reads.offLoop).toBe(true);
    const [names, [count]] = await reads.all([
      { sql: 'SELECT name FROM items WHERE id > ? ORDER BY id', params: [1] },
      { sql: 'SELECT COUNT(*) AS n FROM items', params: [] },
    ]);
    expect(names).toEqual([{ name: 'b' }, { name: 'c' }]);
    expect(count).toEqual({ n: 3 });
  });

  it('sees what the writer committed, beside it', async () => {
    writer.prepare('INSERT INTO items (name) VALUES (?)').run('d');
    const [[count]] = await reads.all([{ sql: 'SELECT COUNT(*) AS n FROM items', params: [] }]);
    expect(count).toEqual({ n: 4 });
  });

  it('cannot write', async () => {
    await expect(
      reads.all([{ sql: "INSERT INTO items (name) VALUES ('x') RETURNING id", params: [] }]),
    ).rejects.toThrow(/readonly/i);
  });

  it('gives up a read past the deadline with 503, and reads again afterwards', async () => {
    const late = reads.all([{ sql: SLOW, params: [] }]);
    await expect(late).rejects.toBeInstanceOf(AppException);
    await expect(late).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    const [[count]] = await reads.all([{ sql: 'SELECT COUNT(*) AS n FROM items', params: [] }]);
    expect(count).toEqual({ n: 4 });
  });
});
