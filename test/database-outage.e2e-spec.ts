import { expectError, login, registerAndLogin, uniqueUser } from './support/auth-helpers';
import { eventually } from './support/shared-redis';
import { TcpProxy } from './support/tcp-proxy';
import { TestApp, startTestApp } from './support/test-app';
import { TestDatabase, createTestDatabase } from './support/test-database';

/**
 * MariaDB going away mid-run, through a proxy this suite owns in front of its own throwaway
 * database (the machine's server is never stopped). Runs in the MariaDB pass.
 */
describe('the database going away and coming back', () => {
  let database: TestDatabase;
  let proxy: TcpProxy;
  let t: TestApp;

  beforeAll(async () => {
    database = await createTestDatabase();
    if (database.kind !== 'mysql') throw new Error('This suite needs MariaDB (TEST_DATABASE_URL)');
    const direct = new URL(database.url);
    proxy = await new TcpProxy(direct.hostname, Number(direct.port || 3306)).start();
    const proxied = new URL(database.url);
    proxied.hostname = '127.0.0.1';
    proxied.port = String(proxy.port);
    t = await startTestApp({}, { database: { ...database, url: proxied.toString() } });
  });

  afterAll(async () => {
    await t?.close();
    await proxy?.stop();
    await database?.drop();
  });

  const health = () => t.http().get('/api/v1/health/ready');

  it('answers 503 in the envelope within a couple of seconds, and recovers without a restart', async () => {
    const before = await registerAndLogin(t);
    await health().expect(200);

    await proxy.cut();

    const started = Date.now();
    expectError(await health(), 503, 'SERVICE_UNAVAILABLE');
    const attempt = uniqueUser('outage');
    expectError(
      await t.http().post('/api/v1/auth/register').send(attempt),
      503,
      'SERVICE_UNAVAILABLE',
    );
    expectError(
      await t
        .http()
        .post('/api/v1/auth/login')
        .send({ email: before.credentials.email, password: before.credentials.password }),
      503,
      'SERVICE_UNAVAILABLE',
    );
    const logout = await t
      .http()
      .post('/api/v1/auth/logout')
      .set('Authorization', `Bearer ${before.access}`);
    expect(logout.status).toBe(503);
    // Four requests, each answered at once: the proxy refuses connections, as a stopped server.
    expect(Date.now() - started).toBeLessThan(4 * 2500);

    await proxy.restore();
    await eventually(async () => (await health()).status === 200, 10_000);

    // Nothing lost, nothing half-written: the registration refused during the outage left no
    // trace, so it succeeds now; the account made before still logs in.
    await t.http().post('/api/v1/auth/register').send(attempt).expect(201);
    await login(t, attempt);
    const again = await login(t, before.credentials);
    await t
      .http()
      .get('/api/v1/auth/verify-token')
      .set('Authorization', `Bearer ${again.access}`)
      .expect(200);
  });

  it('answers each request within a couple of seconds while the database is away', async () => {
    await proxy.cut();
    try {
      for (const request of [
        () => health(),
        () => t.http().post('/api/v1/auth/register').send(uniqueUser('slow')),
      ]) {
        const started = Date.now();
        expect((await request()).status).toBe(503);
        expect(Date.now() - started).toBeLessThan(2500);
      }
    } finally {
      await proxy.restore();
    }
    await eventually(async () => (await health()).status === 200, 10_000);
  });

  it('answers 503 within a couple of seconds when the database hangs instead of refusing', async () => {
    proxy.stall();
    try {
      const started = Date.now();
      expectError(await health(), 503, 'SERVICE_UNAVAILABLE');
      // The connection attempt is given up after 2 s (no socket left hanging).
      expect(Date.now() - started).toBeLessThan(4000);
    } finally {
      proxy.unstall();
    }
    await eventually(async () => (await health()).status === 200, 10_000);
  });
});
