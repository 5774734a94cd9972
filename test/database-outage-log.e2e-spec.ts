import { TcpProxy } from './support/tcp-proxy';
import { eventually } from './support/shared-redis';
import { uniqueUser } from './support/auth-helpers';
import { TestApp, startTestApp } from './support/test-app';
import { TestDatabase, createTestDatabase } from './support/test-database';

/**
 * What an operator reads in the log during a database outage, while a load balancer probes
 * readiness every second and clients keep calling: one line when it starts, one when it ends,
 * not an error per refused request. Runs in the MariaDB pass (the proxy cuts a real server).
 */
describe('the log of a database outage', () => {
  const lines: Array<Record<string, unknown>> = [];
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
    t = await startTestApp(
      { LOG_LEVEL: 'info' },
      {
        database: { ...database, url: proxied.toString() },
        logDestination: { write: (line: string) => lines.push(JSON.parse(line)) },
      },
    );
  });
  afterAll(async () => {
    await t?.close();
    await proxy?.stop();
    await database?.drop();
  });

  const ready = () => t.http().get('/api/v1/health/ready');
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it('says once that the database is unreachable and once that it is back', async () => {
    await eventually(async () => (await ready()).status === 200, 5000);
    lines.length = 0;

    await proxy.cut();
    const statuses: number[] = [];
    for (let second = 0; second < 5; second++) {
      statuses.push((await ready()).status);
      statuses.push((await t.http().post('/api/v1/auth/register').send(uniqueUser())).status);
      await sleep(1000);
    }
    expect(statuses.slice(-4)).toEqual([503, 503, 503, 503]);
    await proxy.restore();
    await eventually(async () => (await ready()).status === 200, 5000);
    for (let second = 0; second < 2; second++) {
      await ready().expect(200);
      await sleep(1000);
    }

    const about = (pattern: RegExp) =>
      lines.filter((line) => line.context === 'Database' && pattern.test(String(line.msg)));
    expect(about(/unreachable/)).toEqual([
      expect.objectContaining({
        level: 50,
        msg: expect.stringMatching(/^The database is unreachable \(/),
      }),
    ]);
    expect(about(/reachable again/)).toEqual([
      expect.objectContaining({ level: 30, msg: 'The database is reachable again' }),
    ]);
    // Nothing else at error level: the refused requests are plain request lines.
    expect(lines.filter((line) => Number(line.level) >= 50)).toHaveLength(1);
    expect(lines.filter((line) => line.status === 503).length).toBeGreaterThanOrEqual(8);
  });
});
