import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AuditEvent } from '../src/audit/audit-event.entity';
import { expectError, registerAndLogin, uniqueUser } from './support/auth-helpers';
import { REDIS_SERVER, dropKeys, eventually, uniquePrefix } from './support/shared-redis';
import { TestApp, startTestApp } from './support/test-app';
import { TestDatabase, createTestDatabase } from './support/test-database';
import { CommandRun, runCommand } from './support/operator-command';
import { serviceArgs } from './support/service-build';

const ROOT = join(__dirname, '..');
const COMMAND = 'src/cli/promote-user.command.ts';

/** The real command, as `npm run users:promote -- …` runs it, in a folder of its own. */
function promote(cwd: string, env: Record<string, string>, ...args: string[]): Promise<CommandRun> {
  return runCommand(cwd, [...serviceArgs('cli/promote-user.command'), ...args], env);
}

/**
 * `npm run users:promote -- EMAIL` against a throwaway database: the embedded SQLite file under
 * ./data by default (no DATABASE_URL, as `npm start`), or MariaDB with Redis in CI's second pass.
 * The service runs beside the command throughout: on MariaDB it sees the new role at the next
 * request (Redis tells it), on SQLite once its user cache expires (USER_CACHE_TTL).
 */
describe('npm run users:promote -- EMAIL', () => {
  let dir: string;
  let database: TestDatabase;
  let prefix: string;
  let t: TestApp | undefined;
  /** The command's environment: nothing on SQLite (the default store), the server on MariaDB. */
  let commandEnv: Record<string, string>;
  let appEnv: Record<string, string>;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'auth-promote-'));
    database = await createTestDatabase();
    prefix = uniquePrefix();
    if (database.kind === 'mysql') {
      const shared = {
        DATABASE_URL: database.url,
        REDIS_URL: REDIS_SERVER.toString(),
        REDIS_KEY_PREFIX: prefix,
      };
      commandEnv = shared;
      // A cache that would serve the old role for ten minutes, were Redis not told.
      appEnv = { ...shared, USER_CACHE_TTL: '600' };
    } else {
      commandEnv = {};
      // The file the command finds by default; the app keeps it open all along.
      appEnv = { DATABASE_URL: `sqlite:${join(dir, 'data', 'auth.sqlite')}` };
    }
  });
  afterAll(async () => {
    await t?.close();
    await database?.drop();
    if (database?.kind === 'mysql') await dropKeys(prefix);
    rmSync(dir, { recursive: true, force: true });
  });

  /** A running instance sees the new role: told through Redis, or once its cache expires. */
  const admitted = (access: string) =>
    eventually(
      async () =>
        (await t!.http().get('/api/v1/admin/users').set('Authorization', `Bearer ${access}`))
          .status === 200,
      5000,
    );

  it('is the package script', () => {
    const scripts = (
      JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
        scripts: Record<string, string>;
      }
    ).scripts;
    expect(scripts['users:promote']).toBe(`ts-node --transpile-only ${COMMAND}`);
  });

  it('promotes an account by email, recorded with no actor, and the admin routes open to it', async () => {
    t = await startTestApp(appEnv, { database });
    const credentials = uniqueUser('operator');
    const session = await registerAndLogin(t, credentials);
    const other = await registerAndLogin(t);
    const admin = () =>
      t!.http().get('/api/v1/admin/users').set('Authorization', `Bearer ${session.access}`);
    expectError(await admin(), 403, 'FORBIDDEN');

    // Found as login finds it: whatever the case and surrounding spaces.
    const typed = `  ${credentials.email.toUpperCase()} `;
    const run = await promote(dir, commandEnv, typed);
    expect(run).toMatchObject({
      code: 0,
      stdout: `${credentials.email} (${session.user.id}) is now an admin\n`,
    });

    // The instance kept running beside the command, with the session it had.
    const access = session.access;
    await admitted(access);
    const listed = await t
      .http()
      .get('/api/v1/admin/users')
      .set('Authorization', `Bearer ${access}`)
      .expect(200);
    expect(listed.body.data.total).toBe(2);
    await t
      .http()
      .post(`/api/v1/admin/users/${other.user.id}/disable`)
      .set('Authorization', `Bearer ${access}`)
      .expect(200);

    const events = await t.dataSource
      .getRepository(AuditEvent)
      .find({ where: { userId: session.user.id, type: 'role_changed' } });
    expect(events).toEqual([expect.objectContaining({ actorId: null, ip: null })]);

    const again = await promote(dir, commandEnv, credentials.email);
    expect(again).toMatchObject({
      code: 0,
      stdout: `${credentials.email} (${session.user.id}) is already an admin\n`,
    });
  }, 90_000);

  it('refuses an unknown email or a missing argument with a clear line and exit code 1', async () => {
    const unknown = await promote(dir, commandEnv, 'nobody@example.com');
    expect(unknown).toMatchObject({
      code: 1,
      stdout: '',
      stderr: 'No account has the email nobody@example.com\n',
    });
    const usage = await promote(dir, commandEnv);
    expect(usage).toMatchObject({
      code: 1,
      stdout: '',
      stderr: 'Usage: npm run users:promote -- EMAIL\n',
    });
  }, 60_000);

  it('stops at an invalid configuration, naming the variable', async () => {
    const run = await promote(dir, { ...commandEnv, DATABASE_URL: 'postgres://nowhere' }, 'a@b.c');
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('DATABASE_URL');
    expect(run.stdout).toBe('');
  }, 30_000);

  it('while the service writes: promotes beside it, on the embedded store as on MariaDB', async () => {
    t ??= await startTestApp(appEnv, { database });
    const credentials = uniqueUser('running');
    const session = await registerAndLogin(t, credentials);

    // The service keeps writing (registrations, logins) while the command writes the same file.
    const busy = Promise.all(Array.from({ length: 10 }, () => registerAndLogin(t!)));
    const run = await promote(dir, commandEnv, credentials.email);
    await busy;

    expect(run).toMatchObject({ code: 0, stderr: '' });
    await admitted(session.access);
  }, 60_000);
});
