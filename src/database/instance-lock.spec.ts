import { HttpAdapterHost } from '@nestjs/core';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSourceOptions } from 'typeorm';
import { InstanceLock } from './instance-lock';

/** An app that serves HTTP (`npm start`), or a script's context without an adapter. */
function lock(serving: boolean): InstanceLock {
  return new InstanceLock({ httpAdapter: serving ? {} : undefined } as unknown as HttpAdapterHost);
}

describe('InstanceLock', () => {
  let dir: string;
  let options: DataSourceOptions;
  const held: InstanceLock[] = [];
  const take = (serving = true, on = options) => {
    const instance = lock(serving);
    held.push(instance);
    instance.holdFor(on);
    return instance;
  };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'auth-lock-'));
    options = { type: 'better-sqlite3', database: join(dir, 'auth.sqlite') };
  });
  afterEach(() => {
    for (const instance of held.splice(0)) instance.onApplicationShutdown();
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses a second server on the same file with a line naming it, until the first stops', () => {
    const first = take();
    expect(() => take()).toThrow(
      `another instance of the service is running on ${join(dir, 'auth.sqlite')}`,
    );
    expect(statSync(join(dir, 'auth.sqlite.lock')).mode & 0o777).toBe(0o600);

    first.onApplicationShutdown();
    expect(() => take()).not.toThrow();
  });

  it('is not taken by a script (no HTTP adapter), an in-memory database or MySQL', () => {
    take();
    expect(() => take(false)).not.toThrow();
    expect(() => take(true, { type: 'better-sqlite3', database: ':memory:' })).not.toThrow();
    expect(() => take(true, { type: 'mysql', url: 'mysql://localhost/auth' })).not.toThrow();
  });
});
