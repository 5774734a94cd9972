import { ProcessPair, startProcessPair } from './support/process-pair';
import { ServiceProcess, postJson } from './support/service-process';
import { queryRows } from './support/service-rows';
import { WebhookReceiver } from './support/webhook-receiver';

const PASSWORD = 'instances-webhooks-1';
const SPREAD = 120;
const BACKLOG = 300;

/**
 * Issue 35: two instances as two processes on one MariaDB and one Redis, both claiming from the
 * one outbox. While the receiver answers 200 at once, each event reaches it exactly once: from
 * events published on either instance as they happen, and from a backlog both drain together
 * (the claims' `FOR UPDATE SKIP LOCKED`). Prints the backlog's throughput.
 */
describe('webhooks across two instances', () => {
  let pair: ProcessPair | undefined;
  let receiver: WebhookReceiver;
  let access: string;
  let webhookId: string;

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    pair = await startProcessPair();
    expect(await register(pair.a, 'pairadmin')).toBe(true);
    await queryRows(pair.database.url, "UPDATE users SET role = 'admin' WHERE username = ?", [
      'pairadmin',
    ]);
    const signedIn = await postJson(pair.a, '/auth/login', {
      email: 'pairadmin@example.com',
      password: PASSWORD,
    });
    access = signedIn.body.access_token as string;
    const created = await postJson(
      pair.a,
      '/admin/webhooks',
      { url: receiver.url('/pair'), events: ['user.created'] },
      access,
    );
    const webhook = (created.body.data as { webhook: { id: string; secret: string } }).webhook;
    webhookId = webhook.id;
    receiver.trust('/pair', webhook.secret);
  }, 120_000);
  afterAll(async () => {
    await pair?.stop();
    await receiver.close();
  });

  const usersIn = (entries = receiver.at('/pair')) =>
    entries.map((entry) => (entry.payload?.data.user as { username: string }).username);

  it(`delivers each of ${SPREAD} events registered on either instance once`, async () => {
    const names = Array.from({ length: SPREAD }, (_, i) => `spread${i}`);
    for (let i = 0; i < names.length; i += 12) {
      await Promise.all(
        names.slice(i, i + 12).map((name, j) => register(j % 2 === 0 ? pair!.a : pair!.b, name)),
      );
    }
    // A registration a loaded machine answered 503 may not be there: the database says which are.
    const stored = await queryRows<{ username: string }>(
      pair!.database.url,
      "SELECT username FROM users WHERE username LIKE 'spread%'",
    );
    expect(stored.length).toBeGreaterThan(SPREAD / 2);
    await receiver.waitFor('/pair', stored.length, (entry) =>
      usersIn([entry])[0].startsWith('spread'),
    );
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const entries = receiver.at('/pair');
    expect(entries.every((entry) => entry.payload !== undefined)).toBe(true);
    const duplicates = entries.length - new Set(entries.map((entry) => entry.id)).size;
    process.stdout.write(
      `webhooks-instances: ${entries.length} received for ${stored.length} registrations, ` +
        `${duplicates} duplicates\n`,
    );
    expect(usersIn(entries).sort()).toEqual(stored.map((row) => row.username).sort());
    expect(duplicates).toBe(0);
  }, 120_000);

  it(`drains a backlog of ${BACKLOG} from both instances, each event once`, async () => {
    // The backlog an outage of the receiver would leave: the last event, queued again under
    // new delivery ids (as the outbox stores them), all due at once for both instances.
    const [template] = await queryRows<{ event_id: string; body: string }>(
      pair!.database.url,
      "SELECT event_id, body FROM webhook_deliveries WHERE type = 'user.created' LIMIT 1",
    );
    const ids = Array.from({ length: BACKLOG }, (_, i) => `msg_backlog_${i}`);
    const started = Date.now();
    await queryRows(
      pair!.database.url,
      'INSERT INTO webhook_deliveries (id, webhook_id, event_id, type, body, status, attempts,' +
        ' next_attempt_at, created_at) VALUES ' +
        ids
          .map(
            () => "(?, ?, ?, 'user.created', ?, 'pending', 0, UTC_TIMESTAMP(3), UTC_TIMESTAMP(3))",
          )
          .join(', '),
      ids.flatMap((id) => [id, webhookId, template.event_id, template.body]),
    );
    const drained = await receiver.waitFor(
      '/pair',
      BACKLOG,
      (entry) => entry.id.startsWith('msg_backlog_'),
      60_000,
    );
    const seconds = (Date.now() - started) / 1000;
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const entries = receiver.at('/pair').filter((entry) => entry.id.startsWith('msg_backlog_'));
    expect(entries.every((entry) => entry.payload !== undefined)).toBe(true);
    expect(entries.map((entry) => entry.id).sort()).toEqual([...ids].sort());
    process.stdout.write(
      `webhooks-instances: ${drained.length} deliveries drained by two instances in ` +
        `${seconds.toFixed(2)} s (${Math.round(drained.length / seconds)}/s), ` +
        `${entries.length - new Set(entries.map((entry) => entry.id)).size} duplicates\n`,
    );
    const pending = await queryRows<{ count: number }>(
      pair!.database.url,
      "SELECT COUNT(*) AS count FROM webhook_deliveries WHERE status <> 'delivered'",
    );
    expect(Number(pending[0].count)).toBe(0);
  }, 120_000);
});

/** Whether the registration was answered 201. */
async function register(service: ServiceProcess, name: string): Promise<boolean> {
  const answer = await postJson(service, '/auth/register', {
    email: `${name}@example.com`,
    username: name,
    password: PASSWORD,
  });
  return answer.status === 201;
}
