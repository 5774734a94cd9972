import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteInUseError, SqliteOwner } from './sqlite-owner';

describe('SqliteOwner: one process per embedded SQLite file', () => {
  let dir: string;
  let file: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'sqlite-owner-'));
    file = join(dir, 'auth.sqlite');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('leaves its pid beside the file and takes it away at a normal stop', () => {
    const owner = SqliteOwner.claim(file);
    expect(readFileSync(`${file}.pid`, 'utf8')).toBe(`${process.pid}\n`);
    owner.release();
    expect(existsSync(`${file}.pid`)).toBe(false);
  });

  it('refuses a file a live process holds', () => {
    // The parent of this process is alive for as long as the test runs.
    writeFileSync(`${file}.pid`, `${process.ppid}\n`);
    expect(() => SqliteOwner.claim(file)).toThrow(SqliteInUseError);
    expect(readFileSync(`${file}.pid`, 'utf8')).toBe(`${process.ppid}\n`);
  });

  it('takes over a file whose holder died without releasing it (a crash)', () => {
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
    writeFileSync(`${file}.pid`, `${dead.stdout.toString()}\n`);
    SqliteOwner.claim(file).release();
    expect(existsSync(`${file}.pid`)).toBe(false);
  });
});
