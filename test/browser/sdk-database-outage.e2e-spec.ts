import { BrowserContext } from 'playwright-core';
import { registerAndLogin } from '../support/auth-helpers';
import { eventually } from '../support/shared-redis';
import { TcpProxy } from '../support/tcp-proxy';
import { TestDatabase, createTestDatabase } from '../support/test-database';
import { Harness, logInThroughPage, openApp, startHarness, timersNeverFire } from './harness';

const ACCESS_TTL_S = 2;

/** What the page's SDK is, as far as this suite calls it. */
interface PageAuth {
  refresh(): Promise<unknown>;
  fetch(url: string): Promise<Response>;
  status(): Promise<{ state: string; error?: { status: number; code: string } }>;
  onSessionEnded(listener: (reason: string) => void): () => void;
}
type PageWindow = Window & { auth: PageAuth; endings: string[] };

/**
 * A short database outage must sign no browser out (issue 22, item 2): the SDK in Chromium, its
 * access token expired, refreshes while the service cannot reach MariaDB (a TCP proxy this suite
 * owns between the service and its throwaway database is cut). Each call fails for a passing
 * reason, and once the database is back the same session goes on. Runs in the MariaDB pass.
 */
describe('the SDK in Chromium through a database outage', () => {
  let database: TestDatabase;
  let databaseProxy: TcpProxy;
  let h: Harness;
  let context: BrowserContext;

  beforeAll(async () => {
    database = await createTestDatabase();
    if (database.kind !== 'mysql') throw new Error('This suite needs MariaDB (TEST_DATABASE_URL)');
    const direct = new URL(database.url);
    databaseProxy = await new TcpProxy(direct.hostname, Number(direct.port || 3306)).start();
    const proxied = new URL(database.url);
    proxied.hostname = '127.0.0.1';
    proxied.port = String(databaseProxy.port);
    h = await startHarness(
      { ACCESS_TOKEN_TTL: String(ACCESS_TTL_S) },
      { database: { ...database, url: proxied.toString() } },
    );
    context = await h.browser.newContext();
  });
  afterAll(async () => {
    await context?.close();
    await h?.close();
    await databaseProxy?.stop();
    await database?.drop();
  });

  const ready = async () => (await h.t.http().get('/api/v1/health/ready')).status === 200;

  it('keeps the page signed in: refresh, auth.fetch and status() fail for a passing reason, and the session is alive after', async () => {
    // No renewal ahead of the expiry (a throttled tab, a laptop asleep): the access token does
    // expire, and each call below needs a refresh.
    await timersNeverFire(context);
    const { page } = await openApp(context, h.spa.url);
    const { credentials } = await registerAndLogin(h.t);
    await logInThroughPage(page, credentials);
    await page.evaluate(() => {
      const w = window as unknown as PageWindow;
      w.endings = [];
      w.auth.onSessionEnded((reason) => w.endings.push(reason));
    });
    // Expired: every call below must go through a refresh.
    await new Promise((resolve) => setTimeout(resolve, ACCESS_TTL_S * 1000 + 600));
    await eventually(ready, 5000);

    await databaseProxy.cut();
    const during = await page.evaluate(async (api) => {
      const { auth } = window as unknown as PageWindow;
      const failure = (error: { status: number; code: string }) => `${error.status} ${error.code}`;
      const refresh = await auth.refresh().then(() => 'refreshed', failure);
      const fetched = await auth
        .fetch(`${api}/auth/verify-token`)
        .then((response) => `answered ${response.status}`, failure);
      const status = await auth.status();
      return {
        refresh,
        fetched,
        status: status.error ? `${status.state}: ${failure(status.error)}` : status.state,
      };
    }, h.apiUrl);
    await databaseProxy.restore();

    expect(during).toEqual({
      refresh: '503 SERVICE_UNAVAILABLE',
      fetched: '503 SERVICE_UNAVAILABLE',
      status: 'unavailable: 503 SERVICE_UNAVAILABLE',
    });
    await eventually(ready, 5000);
    const after = await page.evaluate(async (api) => {
      const { auth, endings } = window as unknown as PageWindow;
      const status = await auth.status();
      const fetched = await auth.fetch(`${api}/auth/verify-token`);
      return { status: status.state, fetched: fetched.status, endings };
    }, h.apiUrl);
    expect(after).toEqual({ status: 'signed-in', fetched: 200, endings: [] });
    expect(await page.textContent('#status')).toBe(`Signed in as ${credentials.username}`);
  });
});
