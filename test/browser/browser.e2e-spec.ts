import { BrowserContext, Page } from 'playwright-core';
import { expectError, logOutElsewhere, registerAndLogin } from '../support/auth-helpers';
import {
  Harness,
  logInThroughPage,
  openApp,
  resetCounts,
  startHarness,
  timersNeverFire,
} from './harness';

const ACCESS_TTL_S = 2;

/**
 * The SDK's hard parts in a real Chromium, against the real service: the page on
 * http://localhost:<port>, the API on another localhost port (same site, another origin), a
 * foreign page on 127.0.0.1 (another site). The example app's own states: example-app.e2e-spec.ts.
 */
describe('the browser story: the SDK in Chromium', () => {
  let h: Harness;
  let apiUrl: string;

  beforeAll(async () => {
    h = await startHarness({ ACCESS_TOKEN_TTL: String(ACCESS_TTL_S) });
    apiUrl = h.apiUrl;
  });
  afterAll(() => h?.close());

  let context: BrowserContext;
  beforeEach(async () => {
    context = await h.browser.newContext();
  });
  afterEach(() => context.close());

  const open = (path = '/') => openApp(context, h.spa.url, path);
  const t = () => h.t;

  /** `client.fetch` of a protected route from inside the page; resolves with the status. */
  function protectedCall(page: Page): Promise<number> {
    return page.evaluate(async (api) => {
      const auth = (window as unknown as { auth: { fetch(url: string): Promise<Response> } }).auth;
      return (await auth.fetch(`${api}/auth/verify-token`)).status;
    }, apiUrl);
  }

  const accessExpiry = () =>
    new Promise((resolve) => setTimeout(resolve, ACCESS_TTL_S * 1000 + 600));

  it('keeps the tokens in HttpOnly cookies the page cannot read', async () => {
    const { page } = await open();
    await logInThroughPage(page, (await registerAndLogin(t())).credentials);

    expect(await page.evaluate(() => document.cookie)).not.toMatch(/access_token|refresh_token/);
    const cookies = await context.cookies(`${apiUrl}/auth/refresh`);
    const byName = Object.fromEntries(cookies.map((cookie) => [cookie.name, cookie]));
    expect(byName.access_token?.httpOnly).toBe(true);
    expect(byName.refresh_token?.httpOnly).toBe(true);
  });

  it('gives a script on an allowed page no way to read the refresh token', async () => {
    const { page } = await open();
    await logInThroughPage(page, (await registerAndLogin(t())).credentials);

    // What an XSS on the app's own origin would try: ask refresh for the tokens in the body.
    const answer = await page.evaluate(async (api) => {
      try {
        const response = await fetch(`${api}/auth/refresh`, {
          method: 'POST',
          credentials: 'include',
          headers: { 'X-Token-Delivery': 'body' },
        });
        return await response.text();
      } catch (error) {
        return `refused: ${String(error)}`;
      }
    }, apiUrl);
    expect(answer).toMatch(/^refused: TypeError/);
    expect(answer).not.toMatch(/refresh_token/);
  });

  it('renews an expired access token through one automatic refresh', async () => {
    await timersNeverFire(context);
    const tab = await open();
    const { page, refreshes } = tab;
    await logInThroughPage(page, (await registerAndLogin(t())).credentials);
    resetCounts(tab);
    await accessExpiry();

    await page.click('#call-protected');
    await page.waitForFunction(
      () => document.querySelector('#protected-result')?.textContent !== '',
    );

    expect(await page.textContent('#protected-result')).toMatch(/^200 /);
    expect(refreshes.count).toBe(1);
  });

  it('sends exactly one refresh for five parallel calls after expiry', async () => {
    await timersNeverFire(context);
    const tab = await open();
    const { page, refreshes } = tab;
    await logInThroughPage(page, (await registerAndLogin(t())).credentials);
    resetCounts(tab);
    await accessExpiry();

    const statuses = await page.evaluate(async (api) => {
      const auth = (window as unknown as { auth: { fetch(url: string): Promise<Response> } }).auth;
      const calls = Array.from({ length: 5 }, () => auth.fetch(`${api}/auth/verify-token`));
      return (await Promise.all(calls)).map((response) => response.status);
    }, apiUrl);

    expect(statuses).toEqual([200, 200, 200, 200, 200]);
    expect(refreshes.count).toBe(1);
  });

  it('keeps two tabs that refresh at the same moment signed in, with one refresh between them', async () => {
    await timersNeverFire(context);
    const first = await open();
    const { credentials } = await registerAndLogin(t());
    await logInThroughPage(first.page, credentials);
    const second = await open();
    expect(await second.page.textContent('#status')).toBe(`Signed in as ${credentials.username}`);
    resetCounts(first, second);
    await accessExpiry();
    // A slow network: the refresh is still on its way when the other tab's call comes back 401,
    // so the two tabs really do need one refresh at the same moment.
    await context.route('**/auth/refresh', async (route) => {
      await new Promise((resolve) => setTimeout(resolve, 300));
      await route.continue();
    });

    const statuses = await Promise.all([protectedCall(first.page), protectedCall(second.page)]);

    expect(statuses).toEqual([200, 200]);
    // Both calls went out with the expired token, and only one refresh followed.
    expect([first.refreshes.refusedCalls, second.refreshes.refusedCalls]).toEqual([1, 1]);
    expect(first.refreshes.count + second.refreshes.count).toBe(1);
    // Still one live session: another expiry later, both renew again.
    await accessExpiry();
    expect(await Promise.all([protectedCall(first.page), protectedCall(second.page)])).toEqual([
      200, 200,
    ]);
    expect(first.refreshes.count + second.refreshes.count).toBe(2);
  });

  it('after logout, protected calls fail and every tab of the app is told', async () => {
    const first = await open();
    await logInThroughPage(first.page, (await registerAndLogin(t())).credentials);
    const second = await open();

    await first.page.click('#logout');
    await first.page.waitForSelector('#signed-out:not([hidden])');
    // Signed out, no renewal is left pending in either tab.
    resetCounts(first, second);

    expect(await first.page.textContent('#status')).toBe('Signed out');
    await second.page.waitForSelector('#signed-out:not([hidden])');
    expect(await second.page.textContent('#status')).toBe('Signed out');
    expect(await protectedCall(first.page)).toBe(401);
    expect(await protectedCall(second.page)).toBe(401);
    await accessExpiry();
    expect(first.refreshes.count + second.refreshes.count).toBe(0);
  });

  it('tells the app when the session was ended elsewhere (logout on another device)', async () => {
    const { page } = await open();
    const user = await registerAndLogin(t());
    await logInThroughPage(page, user.credentials);
    await logOutElsewhere(t(), user.credentials);

    expect(await protectedCall(page)).toBe(401);

    expect(await page.textContent('#status')).toBe('Your session has ended, log in again');
  });

  it('does not let a page on a foreign origin read the API’s answers', async () => {
    const { page } = await open();
    const user = await registerAndLogin(t());
    await logInThroughPage(page, user.credentials);
    const intruder = await context.newPage();
    await intruder.goto(`${h.foreign.url}/`);

    const outcome = await intruder.evaluate(async (api) => {
      try {
        const response = await fetch(`${api}/auth/verify-token`, { credentials: 'include' });
        return `read ${response.status}: ${await response.text()}`;
      } catch (error) {
        return `blocked: ${String(error)}`;
      }
    }, apiUrl);

    expect(outcome).toMatch(/^blocked: TypeError/);
    // And a state change from there is refused by the service itself, not only hidden by CORS.
    const logout = await t()
      .http()
      .post('/api/v1/auth/logout')
      .set('Origin', h.foreign.url)
      .set('Cookie', (await context.cookies(apiUrl)).map((c) => `${c.name}=${c.value}`).join('; '));
    expectError(logout, 403, 'FORBIDDEN_ORIGIN');
  });
});
