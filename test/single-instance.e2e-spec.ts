import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCommand } from './support/operator-command';
import { serviceArgs } from './support/service-build';
import {
  ServiceProcess,
  postJson,
  runServiceProcess,
  startServiceProcess,
} from './support/service-process';
import { TestDatabase, createTestDatabase } from './support/test-database';

const ROOT = join(__dirname, '..');

/**
 * Issue 33: two servers started on one embedded SQLite file both served, each with its own user
 * cache, rate limits and janitors. The second now stops at boot with one line; a start after the
 * first was killed (`kill -9`) is not refused; the commands docs/operating.md lets run beside
 * the service still work. On MariaDB, where several instances are the way to scale, a second one
 * starts as before.
 */
describe('one server per embedded database file', () => {
  let dataDir: string;
  let database: TestDatabase;
  let env: Record<string, string>;
  let file: string;
  let first: ServiceProcess | undefined;
  const account = { email: 'only@example.com', username: 'only', password: 'only-pass-1' };

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'auth-single-'));
    file = join(dataDir, 'auth.sqlite');
    database = process.env.TEST_DATABASE_URL
      ? await createTestDatabase()
      : { url: `sqlite:${file}`, kind: 'sqlite', drop: async () => {} };
    env = { DATABASE_URL: database.url };
  });
  afterAll(async () => {
    await first?.stop();
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const logIn = async (service: ServiceProcess) => {
    const answer = await postJson(service, '/auth/login', {
      email: account.email,
      password: account.password,
    });
    expect(answer.status).toBe(200);
    return answer.body.access_token as string;
  };

  it('stops a second server on the same file with one line (MariaDB: serves beside), the first serving on', async () => {
    first = await startServiceProcess(env, { dataDir });
    expect((await postJson(first, '/auth/register', account)).status).toBe(201);

    if (database.kind === 'sqlite') {
      const second = await runServiceProcess(env, { dataDir, timeoutMs: 30_000 });
      expect(second.code).toBe(1);
      expect(second.output).toBe(
        `Failed to start: another instance of the service is running on ${file} (it holds ` +
          `${file}.lock); the embedded store serves one instance: stop the other, or use ` +
          'MySQL/MariaDB for several\n',
      );
    } else {
      const second = await startServiceProcess(env, { dataDir });
      await logIn(second);
      await second.stop();
    }

    await logIn(first);
    expect((await fetch(`${first.url}/health/ready`)).status).toBe(200);
  }, 120_000);

  it('lets users:promote and the migration CLI work on the file while the server runs', async () => {
    const access = await logIn(first!);
    const promote = await runCommand(
      dataDir,
      [...serviceArgs('cli/promote-user.command'), account.email],
      env,
    );
    expect(promote).toMatchObject({ code: 0, stderr: '' });
    expect(promote.stdout).toMatch(/^only@example\.com \(\w+\) is now an admin\n$/);

    const show = await runCommand(
      ROOT,
      [join(ROOT, 'node_modules/typeorm/cli-ts-node-commonjs.js'), '-d', 'ormconfig.ts'].concat(
        'migration:show',
      ),
      { ...env, TS_NODE_TRANSPILE_ONLY: 'true', DATA_DIR: dataDir },
    );
    expect(show.code).toBe(0);
    expect(show.stdout).toContain('[X]');
    expect(show.stdout).not.toContain('[ ]');

    // The running server sees the new role once its user cache (USER_CACHE_TTL, 1 s) expires.
    const deadline = Date.now() + 10_000;
    let status = 0;
    while (Date.now() < deadline) {
      status = (
        await fetch(`${first!.url}/admin/users`, { headers: { Authorization: `Bearer ${access}` } })
      ).status;
      if (status === 200) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(status).toBe(200);
  }, 120_000);

  it('starts on the file again after the server was killed (kill -9), with its data', async () => {
    await first!.crash();
    first = await startServiceProcess(env, { dataDir });
    await logIn(first);
  }, 120_000);
});
