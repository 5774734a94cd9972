import { Database } from '../src/database/database.service';
import { DomainEvents } from '../src/events/domain-events.service';
import { UserDirectory } from '../src/users/user-directory.service';
import { User } from '../src/users/user.entity';
import { WebhookAttempt } from '../src/webhooks/webhook-attempt.entity';
import { WebhookDelivery } from '../src/webhooks/webhook-delivery.entity';
import { WebhookDispatcher } from '../src/webhooks/webhook-dispatcher.service';
import {
  LoggedIn,
  expectError,
  login,
  registerAndLogin,
  registerUser,
  uniqueUser,
} from './support/auth-helpers';
import { TestApp, startTestApp } from './support/test-app';
import { WebhookReceiver } from './support/webhook-receiver';

const HOOKS = '/api/v1/admin/webhooks';
const METRICS_TOKEN = 'webhook-metrics-token-0123456789';
const TIMEOUT_MS = 1500;

/**
 * Issue 35: webhooks through the durable outbox, end to end. A plain node:http receiver on
 * loopback verifies every body with the `standardwebhooks` package as it is. Runs on SQLite and,
 * in CI's second pass, on MariaDB; on both platforms.
 */
describe('webhooks', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;
  let admin: LoggedIn;
  let plain: LoggedIn;

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    t = await startTestApp({
      WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
      WEBHOOK_RETRY_SCHEDULE: '1,1',
      METRICS_TOKEN,
    });
    admin = await registerAndLogin(t, uniqueUser('hookadmin'));
    await t.app.get(UserDirectory).setRole(admin.user.id, 'admin');
    plain = await registerAndLogin(t, uniqueUser('hookplain'));
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  const as = (session: { access: string } | undefined) => {
    const auth = <R extends { set(name: string, value: string): R }>(request: R): R =>
      session ? request.set('Authorization', `Bearer ${session.access}`) : request;
    return {
      get: (path: string) => auth(t.http().get(path)),
      post: (path: string, body?: object) => auth(t.http().post(path)).send(body),
      patch: (path: string, body?: object) => auth(t.http().patch(path)).send(body),
      delete: (path: string) => auth(t.http().delete(path)),
    };
  };
  /** An endpoint at `path` of the receiver, trusted with its secret. */
  const endpoint = async (path: string, events: string[] = ['*']) => {
    const response = await as(admin)
      .post(HOOKS, { url: receiver.url(path), events, description: path })
      .expect(201);
    const webhook = response.body.data.webhook as { id: string; secret: string };
    receiver.trust(path, webhook.secret);
    return webhook;
  };
  const deliveries = async (id: string, status?: string) => {
    const query = status ? `?status=${status}` : '';
    const response = await as(admin).get(`${HOOKS}/${id}/deliveries${query}`).expect(200);
    return response.body.data.deliveries as Array<Record<string, unknown>>;
  };
  const eventually = async <T>(read: () => Promise<T>, done: (value: T) => boolean) => {
    const deadline = Date.now() + 15_000;
    for (;;) {
      const value = await read();
      if (done(value) || Date.now() > deadline) return value;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };

  describe('the admin routes', () => {
    it('are refused to a user (403 FORBIDDEN) and to nobody (401)', async () => {
      expectError(await as(plain).get(HOOKS), 403, 'FORBIDDEN');
      expectError(await as(undefined).get(HOOKS), 401, 'INVALID_TOKEN');
      expectError(
        await as(plain).post(HOOKS, { url: receiver.url('/x'), events: ['*'] }),
        403,
        'FORBIDDEN',
      );
    });

    it('show the secret once, never in the listing, and answer 404 for an unknown endpoint', async () => {
      const created = await as(admin)
        .post(HOOKS, { url: receiver.url('/crud'), events: ['user.created', 'user.created'] })
        .expect(201);
      const webhook = created.body.data.webhook;
      expect(webhook).toEqual({
        id: expect.stringMatching(/^wh_/),
        url: receiver.url('/crud'),
        events: ['user.created'],
        enabled: true,
        description: null,
        created_at: expect.any(String),
        secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
      });
      const listed = (await as(admin).get(HOOKS).expect(200)).body.data.webhooks as Array<{
        id: string;
      }>;
      const mine = listed.find((item) => item.id === webhook.id);
      expect(mine).toEqual({ ...webhook, secret: undefined });
      expect(JSON.stringify(listed)).not.toContain('whsec_');

      const patched = await as(admin)
        .patch(`${HOOKS}/${webhook.id}`, { enabled: false, description: 'paused' })
        .expect(200);
      expect(patched.body.data.webhook).toMatchObject({ enabled: false, description: 'paused' });
      await as(admin).delete(`${HOOKS}/${webhook.id}`).expect(200);
      for (const response of [
        await as(admin).delete(`${HOOKS}/${webhook.id}`),
        await as(admin).patch(`${HOOKS}/${webhook.id}`, { enabled: true }),
        await as(admin).post(`${HOOKS}/${webhook.id}/test`),
        await as(admin).post(`${HOOKS}/${webhook.id}/rotate-secret`),
        await as(admin).get(`${HOOKS}/${webhook.id}/deliveries`),
      ]) {
        expectError(response, 404, 'WEBHOOK_NOT_FOUND');
      }
    });

    it('refuse bad input with the field at fault', async () => {
      for (const [body, field] of [
        [{ url: 'not a url', events: ['*'] }, 'url'],
        [{ url: 'ftp://example.com/x', events: ['*'] }, 'url'],
        [{ url: receiver.url('/bad'), events: [] }, 'events'],
        [{ url: receiver.url('/bad'), events: ['user.exploded'] }, 'events'],
        [{ url: receiver.url('/bad'), events: ['webhook.test'] }, 'events'],
        [{ url: receiver.url('/bad') }, 'events'],
        [{ url: receiver.url('/bad'), events: ['*'], secret: 'mine' }, 'secret'],
      ] as const) {
        const response = await as(admin).post(HOOKS, body);
        expectError(response, 400, 'VALIDATION_ERROR');
        const details = response.body.details as Array<{ field: string }>;
        expect(details.map((item) => item.field)).toContain(field);
      }
      const webhook = await endpoint('/bad-status');
      expectError(
        await as(admin).get(`${HOOKS}/${webhook.id}/deliveries?status=lost`),
        400,
        'VALIDATION_ERROR',
      );
      await as(admin).delete(`${HOOKS}/${webhook.id}`).expect(200);
    });
  });

  describe('deliveries', () => {
    it('send user.created and session.created as Standard Webhooks, with the user as /users/me shows it', async () => {
      const webhook = await endpoint('/events', ['user.created', 'session.created']);
      const person = uniqueUser('hooked');
      const registered = await registerUser(t, person);
      const session = await login(t, person);
      const [created] = await receiver.waitFor(
        '/events',
        1,
        (entry) => entry.payload?.type === 'user.created',
      );
      const [started] = await receiver.waitFor(
        '/events',
        1,
        (entry) => entry.payload?.type === 'session.created',
      );
      const me = (
        await t.http().get('/api/v1/users/me').set('Authorization', `Bearer ${session.access}`)
      ).body.data.user;
      expect(created.payload).toEqual({
        type: 'user.created',
        timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        data: {
          user: {
            id: registered.user.id,
            email: me.email,
            username: me.username,
            role: 'user',
            email_verified: false,
            name: null,
            picture: null,
            verified_at: null,
            created_at: me.created_at,
            updated_at: expect.any(String),
          },
          method: 'password',
        },
      });
      expect(created.id).toMatch(/^msg_/);
      expect(Math.abs(Number(created.timestamp) - Date.now() / 1000)).toBeLessThan(30);
      const claims = JSON.parse(
        Buffer.from(session.access.split('.')[1], 'base64url').toString(),
      ) as { sid: string };
      expect(started.payload?.data).toEqual({
        user: expect.objectContaining({ id: registered.user.id }),
        session: { id: claims.sid, amr: ['pwd'] },
      });
      // Never a hash, a token or a secret.
      for (const entry of [created, started]) {
        expect(entry.body).not.toMatch(/hash|token_version|secret|refresh|access|\$2[aby]\$/);
      }
      const log = await deliveries(webhook.id, 'delivered');
      expect(log.map((item) => item.id)).toEqual(expect.arrayContaining([created.id, started.id]));
      expect(log.find((item) => item.id === created.id)).toEqual({
        id: created.id,
        event_id: expect.stringMatching(/^evt_/),
        type: 'user.created',
        status: 'delivered',
        attempts: 1,
        last_status_code: 200,
        last_error: null,
        next_attempt_at: null,
        created_at: expect.any(String),
      });
      await as(admin).delete(`${HOOKS}/${webhook.id}`).expect(200);
    });

    it('send nothing for a change that rolled back', async () => {
      const webhook = await endpoint('/rollback', ['user.created']);
      const events = t.app.get(DomainEvents);
      const user = Object.assign(new User(), {
        id: 'user_rolled_back',
        email: 'gone@example.com',
        createdAt: new Date(),
        updatedAt: new Date(),
        verifiedAt: null,
      });
      await expect(
        t.app.get(Database).transaction(async (manager) => {
          await events.publish(manager, {
            type: 'user.created',
            data: { user, method: 'password' },
          });
          throw new Error('the change fails after its event');
        }),
      ).rejects.toThrow('the change fails');
      // A committed one afterwards arrives: the rolled-back one never does.
      await registerUser(t, uniqueUser('after'));
      await receiver.waitFor('/rollback', 1);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(receiver.at('/rollback')).toHaveLength(1);
      expect(receiver.at('/rollback')[0].body).not.toContain('user_rolled_back');
      expect(
        await t.dataSource.getRepository(WebhookDelivery).countBy({ webhookId: webhook.id }),
      ).toBe(1);
      await as(admin).delete(`${HOOKS}/${webhook.id}`).expect(200);
    });

    it('send the test event to its own endpoint only', async () => {
      const target = await endpoint('/test-target', ['user.created']);
      const other = await endpoint('/test-other');
      await as(admin).post(`${HOOKS}/${target.id}/test`).expect(202);
      const [test] = await receiver.waitFor('/test-target', 1);
      expect(test.payload).toEqual({
        type: 'webhook.test',
        timestamp: expect.any(String),
        data: { webhook_id: target.id },
      });
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(receiver.at('/test-other').filter((e) => e.payload?.type === 'webhook.test')).toEqual(
        [],
      );
      for (const id of [target.id, other.id]) await as(admin).delete(`${HOOKS}/${id}`).expect(200);
    });

    it('sign with the old and the new secret through a rotation', async () => {
      const webhook = await endpoint('/rotate', ['user.created']);
      const rotated = await as(admin).post(`${HOOKS}/${webhook.id}/rotate-secret`).expect(200);
      const secret = rotated.body.data.secret as string;
      expect(secret).toMatch(/^whsec_/);
      expect(secret).not.toBe(webhook.secret);
      receiver.trust('/rotate', webhook.secret, secret);
      await registerUser(t, uniqueUser('rotated'));
      const [entry] = await receiver.waitFor('/rotate', 1);
      expect(entry.signature.split(' ')).toHaveLength(2);
      expect(entry.verifiedBy).toEqual([webhook.secret, secret]);
      await as(admin).delete(`${HOOKS}/${webhook.id}`).expect(200);
    });

    it('retry a failing receiver on the schedule, mark it failed after the last try, and send it again on demand', async () => {
      receiver.answer('/failing', 500);
      const webhook = await endpoint('/failing', ['user.created']);
      await registerUser(t, uniqueUser('retried'));
      // The first try and one after each of the schedule's two pauses.
      const tries = await receiver.waitFor('/failing', 3);
      expect(new Set(tries.map((entry) => entry.id)).size).toBe(1);
      expect(tries[1].at - tries[0].at).toBeGreaterThanOrEqual(900);
      const [failed] = await eventually(
        () => deliveries(webhook.id, 'failed'),
        (list) => list.length === 1,
      );
      expect(failed).toMatchObject({
        id: tries[0].id,
        status: 'failed',
        attempts: 3,
        last_status_code: 500,
        last_error: 'The receiver answered 500',
        next_attempt_at: null,
      });
      expect(await deliveries(webhook.id, 'pending')).toEqual([]);

      receiver.answer('/failing', 204);
      const retried = await as(admin)
        .post(`${HOOKS}/${webhook.id}/deliveries/${failed.id as string}/retry`)
        .expect(200);
      expect(retried.body.data.delivery).toMatchObject({ id: failed.id, status: 'pending' });
      const again = await receiver.waitFor('/failing', 4);
      expect(again[3].id).toBe(failed.id);
      expect(again[3].verifiedBy).toHaveLength(1);
      const [delivered] = await eventually(
        () => deliveries(webhook.id, 'delivered'),
        (list) => list.length === 1,
      );
      expect(delivered).toMatchObject({ id: failed.id, attempts: 4, last_status_code: 204 });
      expectError(
        await as(admin).post(`${HOOKS}/${webhook.id}/deliveries/msg_unknown/retry`),
        404,
        'WEBHOOK_NOT_FOUND',
      );
      await as(admin).delete(`${HOOKS}/${webhook.id}`).expect(200);
    });

    it('let a receiver that hangs delay neither another endpoint nor any request', async () => {
      receiver.answer('/hanging', 'hang');
      const hanging = await endpoint('/hanging', ['user.created']);
      const prompt = await endpoint('/prompt', ['user.created']);
      const slowest: number[] = [];
      for (let i = 0; i < 12; i++) {
        const started = Date.now();
        await registerUser(t, uniqueUser(`h${i}`));
        slowest.push(Date.now() - started);
      }
      const started = Date.now();
      await receiver.waitFor('/prompt', 12);
      // The prompt receiver has all twelve well before the hanging one's first timeout ends.
      expect(Date.now() - started).toBeLessThan(TIMEOUT_MS);
      expect(Math.max(...slowest)).toBeLessThan(TIMEOUT_MS);
      const [timedOut] = await eventually(
        () => deliveries(hanging.id),
        (list) => list.some((item) => item.last_error !== null),
      ).then((list) => list.filter((item) => item.last_error !== null));
      expect(timedOut).toMatchObject({
        status: 'pending',
        last_status_code: null,
        last_error: `No answer within ${TIMEOUT_MS} ms (WEBHOOK_TIMEOUT_MS)`,
      });
      for (const id of [hanging.id, prompt.id]) {
        await as(admin).delete(`${HOOKS}/${id}`).expect(200);
      }
    });
  });

  it('purges finished deliveries and their attempts after 7 days, never a pending one', async () => {
    const webhook = await endpoint('/purged', ['user.created']);
    await registerUser(t, uniqueUser('purged'));
    await receiver.waitFor('/purged', 1);
    const [delivered] = await eventually(
      () => deliveries(webhook.id, 'delivered'),
      (list) => list.length === 1,
    );
    const rows = t.dataSource.getRepository(WebhookDelivery);
    const pending = { ...(await rows.findOneByOrFail({ id: delivered.id as string })) };
    Object.assign(pending, { id: 'msg_still_pending', status: 'pending', finishedAt: null });
    pending.nextAttemptAt = new Date(Date.now() + 86_400_000);
    await rows.insert(pending);
    const dispatcher = t.app.get(WebhookDispatcher);
    expect(await dispatcher.purge(new Date(Date.now() + 6 * 86_400_000))).toBe(0);
    expect(await dispatcher.purge(new Date(Date.now() + 8 * 86_400_000))).toBeGreaterThanOrEqual(1);
    expect(await rows.findOneBy({ id: delivered.id as string })).toBeNull();
    expect(
      await t.dataSource
        .getRepository(WebhookAttempt)
        .countBy({ deliveryId: delivered.id as string }),
    ).toBe(0);
    expect(await rows.findOneBy({ id: 'msg_still_pending' })).not.toBeNull();
    await as(admin).delete(`${HOOKS}/${webhook.id}`).expect(200);
  });

  it('counts deliveries by outcome and shows the queue in /metrics', async () => {
    const text = (await t.http().get('/metrics').set('Authorization', `Bearer ${METRICS_TOKEN}`))
      .text;
    expect(text).toMatch(/\nauth_webhook_deliveries_total\{outcome="delivered"\} [1-9]/);
    expect(text).toMatch(/\nauth_webhook_deliveries_total\{outcome="failed"\} [1-9]/);
    expect(text).toMatch(/\nauth_webhook_deliveries_total\{outcome="retrying"\} [1-9]/);
    expect(text).toMatch(/\nauth_webhook_endpoint_failures_total\{webhook_id="wh_[^"]+"\} [1-9]/);
    expect(text).toMatch(/\nauth_webhook_queue_depth \d+\n/);
    expect(text).toMatch(/\nauth_webhook_oldest_pending_seconds [\d.e+-]+\n/);
  });
});
