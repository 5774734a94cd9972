import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ServiceProcess, postJson, startServiceProcess } from './support/service-process';
import { queryRows } from './support/service-rows';
import { TestDatabase, createTestDatabase } from './support/test-database';
import { WebhookReceiver } from './support/webhook-receiver';

const KILLS = 6;
const BURST = 8;
const PASSWORD = 'crash-webhooks-1';
const TIMEOUT_MS = 1000;

/**
 * Issue 35: the outbox through `kill -9`. Each cycle registers a burst of accounts (answered),
 * starts another and kills the service a few moments into it, while the receiver (which answers
 * after a short pause, so sends are in flight too) is still being sent earlier events. After
 * the restarts every account that exists has had its `user.created` delivered, verified by the
 * `standardwebhooks` package, and no event names an account that does not exist (a registration
 * the kill rolled back). On the SQLite file and on MariaDB.
 */
describe('webhooks survive kill -9', () => {
  let dataDir: string;
  let database: TestDatabase | undefined;
  let databaseUrl: string;
  let service: ServiceProcess | undefined;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'auth-webhook-crash-'));
    receiver = await WebhookReceiver.start();
    receiver.answer('/crash', { status: 200, delayMs: 30 });
    if (process.env.TEST_DATABASE_URL) {
      database = await createTestDatabase();
      databaseUrl = database.url;
    } else {
      databaseUrl = `sqlite:${join(dataDir, 'auth.sqlite')}`;
    }
  });
  afterAll(async () => {
    await service?.stop();
    await receiver.close();
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const start = async () => {
    service = await startServiceProcess(
      { DATABASE_URL: databaseUrl, WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS) },
      { dataDir },
    );
  };
  const register = async (name: string) => {
    const email = `${name}@example.com`;
    const answer = await postJson(service!, '/auth/register', {
      email,
      username: name,
      password: PASSWORD,
    });
    // A 503 (a database slow to answer on a loaded machine) is not acknowledged: whether it
    // committed is read from the database afterwards, as for the burst the kill cuts.
    return answer.status === 201 ? (answer.body.data as { user: { id: string } }).user.id : null;
  };

  it(`delivers every committed registration's event after ${KILLS} kills, and none of a rolled-back one`, async () => {
    await start();
    expect(await register('crashadmin')).not.toBeNull();
    await queryRows(databaseUrl, "UPDATE users SET role = 'admin' WHERE username = ?", [
      'crashadmin',
    ]);
    const signedIn = await postJson(service!, '/auth/login', {
      email: 'crashadmin@example.com',
      password: PASSWORD,
    });
    const access = signedIn.body.access_token as string;
    const created = await postJson(
      service!,
      '/admin/webhooks',
      { url: receiver.url('/crash'), events: ['user.created'] },
      access,
    );
    expect(created.status).toBe(201);
    receiver.trust('/crash', (created.body.data as { webhook: { secret: string } }).webhook.secret);

    const acknowledged: string[] = [];
    for (let kill = 0; kill < KILLS; kill++) {
      const answered = await Promise.all(
        Array.from({ length: BURST }, (_, i) => register(`crash${kill}a${i}`)),
      );
      acknowledged.push(...answered.filter((id): id is string => id !== null));
      // Another burst, cut short by the kill: some of it commits, some never does.
      const cut = Array.from({ length: BURST }, (_, i) =>
        register(`crash${kill}b${i}`).catch(() => null),
      );
      await new Promise((resolve) => setTimeout(resolve, 5 + Math.random() * 120));
      await service!.crash();
      await Promise.all(cut);
      await start();
    }

    const users = await queryRows<{ id: string }>(
      databaseUrl,
      "SELECT id FROM users WHERE username LIKE 'crash%' AND username <> 'crashadmin'",
    );
    const existing = new Set(users.map((row) => row.id));
    expect(acknowledged.length).toBeGreaterThan((KILLS * BURST) / 2);
    expect(acknowledged.every((id) => existing.has(id))).toBe(true);
    // Claims the kills left behind are due again once their lease (timeout and 10 s) ends.
    await receiver.waitFor(
      '/crash',
      existing.size,
      (entry) => entry.payload?.type === 'user.created',
      60_000,
    );
    const deadline = Date.now() + 60_000;
    const deliveredIds = () =>
      new Set(
        receiver.at('/crash').map((entry) => (entry.payload?.data.user as { id: string }).id),
      );
    while ([...existing].some((id) => !deliveredIds().has(id)) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const entries = receiver.at('/crash');
    expect(entries.every((entry) => entry.payload !== undefined)).toBe(true);
    const lost = [...existing].filter((id) => !deliveredIds().has(id));
    const phantom = [...deliveredIds()].filter((id) => !existing.has(id));
    const duplicates = entries.length - new Set(entries.map((entry) => entry.id)).size;
    // The figures the issue asks for, in the test's output.
    process.stdout.write(
      `webhooks-crash: ${existing.size} committed, ${acknowledged.length} acknowledged, ` +
        `${lost.length} lost, ${phantom.length} phantom, ${duplicates} resent after a kill\n`,
    );
    expect(lost).toEqual([]);
    expect(phantom).toEqual([]);
  }, 240_000);
});
