import { expectError, registerAndLogin } from './support/auth-helpers';
import { Pair, startPair } from './support/instance-pair';
import { CapturedLog, eventually, redisOf } from './support/shared-redis';
import { TcpProxy } from './support/tcp-proxy';
import { APP_ORIGIN, TestApp } from './support/test-app';

/**
 * Two instances of the service on one MariaDB and one Redis (runs in the MariaDB pass: two
 * processes cannot share one embedded SQLite). Redis is reached through a proxy the suite owns,
 * so it can be cut off without touching the machine's server.
 */
describe('several instances sharing MariaDB and Redis', () => {
  let pair: Pair;
  let proxy: TcpProxy;
  let log: CapturedLog;
  let a: TestApp;
  let b: TestApp;

  beforeAll(async () => {
    log = new CapturedLog();
    // Long enough that only Redis can explain an instance refusing another's revocation.
    pair = await startPair({ USER_CACHE_TTL: '300' }, log);
    ({ a, b, proxy } = pair);
  });

  afterAll(() => pair?.close());

  const verify = (t: TestApp, access: string) =>
    t.http().get('/api/v1/auth/verify-token').set('Authorization', `Bearer ${access}`);
  const logout = (t: TestApp, access: string) =>
    t.http().post('/api/v1/auth/logout').set('Authorization', `Bearer ${access}`).expect(200);

  it('refuses a token on both instances as soon as a logout on the other has answered', async () => {
    const user = await registerAndLogin(a);
    await verify(a, user.access).expect(200);
    await verify(b, user.access).expect(200);

    await logout(b, user.access);

    expectError(await verify(a, user.access), 401, 'INVALID_TOKEN');
    expectError(await verify(b, user.access), 401, 'INVALID_TOKEN');
  });

  it('keeps serving while Redis is away, never accepts a revoked token, and recovers by itself', async () => {
    const user = await registerAndLogin(a);
    await verify(b, user.access).expect(200);
    expect(log.matching('Redis is unreachable')).toEqual([]);

    await proxy.cut();
    await eventually(() => !redisOf(a).ready && !redisOf(b).ready, 3000);

    // Still serving: token checks, logins and registrations.
    await verify(b, user.access).expect(200);
    const other = await registerAndLogin(b);
    await verify(a, other.access).expect(200);
    // A revocation on one instance is refused on the other at once: it reads the database now.
    await logout(a, user.access);
    expectError(await verify(b, user.access), 401, 'INVALID_TOKEN');
    for (let i = 0; i < 5; i++) await verify(a, other.access).expect(200);
    // Still ready: every instance shares Redis, so 503 would take them all out.
    const ready = await a.http().get('/api/v1/health/ready').expect(200);
    expect(ready.body.data).toEqual({
      status: 'degraded',
      checks: { database: 'up', redis: 'down' },
    });
    // One line per instance for the outage, however many requests ran through it.
    expect(log.matching('Redis is unreachable')).toHaveLength(2);

    await proxy.restore();
    await eventually(() => redisOf(a).ready && redisOf(b).ready, 5000);
    expect(log.matching('Redis is reachable again')).toHaveLength(2);

    // Shared again: B's warm cache is checked against Redis, so A's revocation holds at once.
    await verify(b, other.access).expect(200);
    await logout(a, other.access);
    expectError(await verify(b, other.access), 401, 'INVALID_TOKEN');
  });
  it('replaces a connection that went silent for good (a vanished peer), without a restart', async () => {
    const user = await registerAndLogin(a);
    proxy.freeze({ newConnections: 'relay' });
    try {
      // Each instance notices on its next command and checks the database meanwhile.
      await verify(a, user.access).expect(200);
      await verify(b, user.access).expect(200);
      await eventually(() => !redisOf(a).ready && !redisOf(b).ready, 3000);
      // The silent connections are dropped and new ones (which reach Redis) take over.
      await eventually(() => redisOf(a).ready && redisOf(b).ready, 8000);
      await logout(b, user.access);
      expectError(await verify(a, user.access), 401, 'INVALID_TOKEN');
    } finally {
      proxy.thaw();
    }
  });

  it('heals by itself after Redis accepted connections and never answered', async () => {
    const user = await registerAndLogin(a);
    proxy.stall();
    await eventually(() => !redisOf(a).ready && !redisOf(b).ready, 3000);
    // Checked against the database meanwhile: still served, and revocation still holds.
    await verify(b, user.access).expect(200);
    await logout(a, user.access);
    expectError(await verify(b, user.access), 401, 'INVALID_TOKEN');
    // Long enough for ioredis to have reconnected into the stalled proxy, where the new
    // connections' handshakes hang.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(redisOf(a).ready || redisOf(b).ready).toBe(false);

    proxy.unstall();
    // The stuck connections are dropped and made again, without a restart.
    await eventually(() => redisOf(a).ready && redisOf(b).ready, 8000);
    const other = await registerAndLogin(b);
    await verify(a, other.access).expect(200);
    await logout(b, other.access);
    expectError(await verify(a, other.access), 401, 'INVALID_TOKEN');
  });
});

describe('the auth-route limit across instances', () => {
  let pair: Pair;

  beforeAll(async () => {
    pair = await startPair({ THROTTLE_AUTH_LIMIT: '5' });
  });

  afterAll(() => pair?.close());

  it('holds 5 per window for one IP across both: 3 + 3 logins, the sixth is 429', async () => {
    const attempt = (t: TestApp) =>
      t
        .http()
        .post('/api/v1/auth/login')
        .send({ email: 'nobody@example.com', password: 'wrong-1' });
    const statuses: number[] = [];
    const { a, b } = pair;
    for (const t of [a, a, a, b, b]) statuses.push((await attempt(t)).status);
    expect(statuses).toEqual([401, 401, 401, 401, 401]);

    const sixth = await attempt(pair.b);
    expectError(sixth, 429, 'RATE_LIMITED');
    expect(Number(sixth.headers['retry-after'])).toBeGreaterThan(0);
  });
});

describe('the general limit across instances', () => {
  let pair: Pair;

  beforeAll(async () => {
    pair = await startPair({ THROTTLE_LIMIT: '4' });
  });

  afterAll(() => pair?.close());

  it('is one budget in Redis for unknown routes, preflights and real routes of one IP', async () => {
    const { a, b } = pair;
    const preflight = (t: TestApp) =>
      t
        .http()
        .options('/api/v1/auth/refresh')
        .set('Origin', APP_ORIGIN)
        .set('Access-Control-Request-Method', 'POST')
        .set('Sec-Fetch-Mode', 'cors')
        .set('Sec-Fetch-Site', 'same-site');
    const statuses = [
      (await a.http().get('/api/v1/nope')).status,
      (await preflight(b)).status,
      (await a.http().get('/api/v1/auth/verify-token')).status,
      (await b.http().post('/api/v1/nope').send({})).status,
    ];
    expect(statuses).toEqual([404, 204, 401, 404]);
    expectError(await a.http().get('/api/v1/nope'), 429, 'RATE_LIMITED');
    expectError(await preflight(a), 429, 'RATE_LIMITED');
    expectError(await b.http().get('/api/v1/auth/verify-token'), 429, 'RATE_LIMITED');
    await b.http().get('/api/v1/health').expect(200);
  });
});
