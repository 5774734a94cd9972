import Redis from 'ioredis';
import { UsersService } from '../src/users/users.service';
import { LoggedIn, expectError, registerAndLogin } from './support/auth-helpers';
import { PrivateRedis } from './support/private-redis';
import { CapturedLog, eventually, redisOf, uniquePrefix } from './support/shared-redis';
import { TestApp, startTestApp } from './support/test-app';
import { TestDatabase, createTestDatabase } from './support/test-database';

/** Requests kept going at once, per instance, while Redis hangs. */
const LOOPS = 3;
/** The service's deadline for one Redis command: a request that waited on Redis took this long. */
const COMMAND_TIMEOUT_MS = 500;
/** A request that waited on Redis waits one command deadline at most, plus its own work. */
const WAITED_BOUND_MS = 1200;
/** A typical request that did not wait on Redis: generous for a shared 2-core machine. */
const FAST_BOUND_MS = 250;
/** By then the instances must have noticed the hang: one command deadline and some slack. */
const NOTICED_AFTER_MS = 700;

/**
 * Redis that hangs (a server stopped with SIGSTOP keeps its connections open, so nothing fails
 * fast): each instance must notice once, stop making requests wait on it, refuse revoked tokens
 * from the database, log the outage and the recovery once each, and heal without a restart.
 */
describe('a Redis that hangs, seen by two instances', () => {
  let redis: PrivateRedis;
  let database: TestDatabase;
  let log: CapturedLog;
  let a: TestApp;
  let b: TestApp;
  const prefix = uniquePrefix();

  beforeAll(async () => {
    redis = await PrivateRedis.start();
    database = await createTestDatabase();
    if (database.kind !== 'mysql')
      throw new Error('Two instances need MariaDB (TEST_DATABASE_URL)');
    log = new CapturedLog();
    const env = { REDIS_URL: redis.url, REDIS_KEY_PREFIX: prefix, USER_CACHE_TTL: '300' };
    a = await startTestApp(env, { database, logger: log });
    b = await startTestApp(env, { database, logger: log });
    await eventually(() => redisOf(a).ready && redisOf(b).ready, 5000);
  });

  afterAll(async () => {
    await a?.close();
    await b?.close();
    await database?.drop();
    await redis?.stop();
  });

  const verify = (t: TestApp, access: string) =>
    t.http().get('/api/v1/auth/verify-token').set('Authorization', `Bearer ${access}`);

  it('takes a command deadline missed while its own event loop stalled for no outage once Redis answers', async () => {
    // What ioredis reports after such a stall: its deadline is a plain timer, which fires
    // before the answer waiting in the socket is read.
    const service = redisOf(a);
    service.failed(new Error('Command timed out'));
    expect(service.ready).toBe(false);
    await eventually(() => service.ready, 2000);
    expect(log.matching('Redis is unreachable')).toEqual([]);
    expect(log.matching('Redis is reachable again')).toEqual([]);
  });

  it('is noticed once per outage, never accepts a revoked token, and heals by itself', async () => {
    const kept = await registerAndLogin(a);
    for (const t of [a, b]) await verify(t, kept.access).expect(200);
    // Both instances share the class; the counts below are taken while nothing else runs.
    const databaseReads = jest.spyOn(UsersService.prototype, 'findWithSession');

    for (const outage of [1, 2]) {
      const revoked = await registerAndLogin(b);
      // Warm on both, so only the outage handling can explain a refusal.
      for (const t of [a, b]) await verify(t, revoked.access).expect(200);

      const load = startLoad([a, b], kept);
      await sleep(300);
      redis.freeze();
      const frozenAt = Date.now();
      await sleep(NOTICED_AFTER_MS);

      // A logout during the hang answers without waiting on Redis again...
      const logoutStarted = Date.now();
      await b
        .http()
        .post('/api/v1/auth/logout')
        .set('Authorization', `Bearer ${revoked.access}`)
        .expect(200);
      expect(Date.now() - logoutStarted).toBeLessThan(COMMAND_TIMEOUT_MS);
      // ...and is refused by both at once: they read the database while Redis is down.
      for (const t of [a, b]) expectError(await verify(t, revoked.access), 401, 'INVALID_TOKEN');
      const ready = await a.http().get('/api/v1/health/ready').expect(200);
      expect(ready.body.data.checks).toEqual({ database: 'up', redis: 'down' });
      await sleep(1000);
      for (const t of [a, b]) expectError(await verify(t, revoked.access), 401, 'INVALID_TOKEN');
      const results = await load.stop();
      const readsBefore = databaseReads.mock.calls.length;
      await verify(a, kept.access).expect(200);
      await verify(a, kept.access).expect(200);
      // No cache while Redis is down: every check read the database.
      expect(databaseReads.mock.calls.length - readsBefore).toBe(2);

      redis.thaw();
      await eventually(() => redisOf(a).ready && redisOf(b).ready, 3000);

      const during = results.filter((r) => r.started >= frozenAt);
      const afterNoticed = during.filter((r) => r.started >= frozenAt + NOTICED_AFTER_MS);
      const slowest = Math.max(...results.map((r) => r.ms));
      console.log(
        `outage ${outage}: ${during.length} requests during the hang, slowest ${slowest} ms, ` +
          `${results.filter((r) => r.ms > FAST_BOUND_MS).length} over ${FAST_BOUND_MS} ms`,
      );
      expect(results.filter((r) => r.status !== 200)).toEqual([]);
      expect(afterNoticed.length).toBeGreaterThan(50);
      expect(slowest).toBeLessThan(WAITED_BOUND_MS);
      // Once noticed, no request waits on Redis again: none takes a command deadline, and the
      // typical one is as fast as without Redis (a hiccup of the shared machine aside).
      expect(afterNoticed.filter((r) => r.ms >= COMMAND_TIMEOUT_MS)).toEqual([]);
      expect(median(afterNoticed.map((r) => r.ms))).toBeLessThan(FAST_BOUND_MS);

      // One line each way per instance per outage.
      expect(log.matching('Redis is unreachable')).toHaveLength(2 * outage);
      expect(log.matching('Redis is reachable again')).toHaveLength(2 * outage);
      expect(log.matching('Redis is unreachable')[2 * outage - 1]).toContain('timed out');

      // Healed: the revoked token stays refused, cached checks resume, shared limits count again.
      for (const t of [a, b]) expectError(await verify(t, revoked.access), 401, 'INVALID_TOKEN');
      await verify(a, kept.access).expect(200);
      const readsAfter = databaseReads.mock.calls.length;
      const hitsBefore = await sharedHits(redis, prefix);
      await verify(a, kept.access).expect(200);
      await verify(a, kept.access).expect(200);
      expect(databaseReads.mock.calls.length).toBe(readsAfter);
      expect(await sharedHits(redis, prefix)).toBe(hitsBefore + 2);
      const healthy = await a.http().get('/api/v1/health/ready').expect(200);
      expect(healthy.body.data.checks).toEqual({ database: 'up', redis: 'up' });
    }
  }, 60_000);
});

interface Result {
  started: number;
  ms: number;
  status: number;
}

/** LOOPS verify-token requests at once on each instance, back to back, each one timed. */
function startLoad(instances: TestApp[], user: LoggedIn) {
  const results: Result[] = [];
  let running = true;
  const loops = instances.flatMap((t) =>
    Array.from({ length: LOOPS }, async () => {
      while (running) {
        const started = Date.now();
        const response = await t
          .http()
          .get('/api/v1/auth/verify-token')
          .set('Authorization', `Bearer ${user.access}`);
        results.push({ started, ms: Date.now() - started, status: response.status });
        await sleep(5);
      }
    }),
  );
  return {
    stop: async () => {
      running = false;
      await Promise.all(loops);
      return results;
    },
  };
}

/** The rate-limit hits every instance counted in Redis, summed. */
async function sharedHits(redis: PrivateRedis, prefix: string): Promise<number> {
  const client = new Redis(redis.port, '127.0.0.1', { maxRetriesPerRequest: 1 });
  try {
    const keys = await client.keys(`${prefix}*:hits`);
    const values = keys.length > 0 ? await client.mget(...keys) : [];
    return values.reduce((sum, value) => sum + Number(value ?? 0), 0);
  } finally {
    client.disconnect();
  }
}

function median(values: number[]): number {
  return [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)];
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
