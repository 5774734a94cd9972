import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { Browser, BrowserContext, Page, chromium } from 'playwright-core';
import { SpaServer, startSpaServer } from '../../examples/spa/server';
import { expectError, login, registerAndLogin, uniqueUser } from '../support/auth-helpers';
import { freePort } from '../support/free-port';
import { SmtpSink } from '../support/mailbox';
import { TestApp, startTestApp } from '../support/test-app';

/** Debian's Chromium; never a downloaded browser. */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ACCESS_TTL_S = 2;
const TSC = require.resolve('typescript/bin/tsc');

/**
 * The SDK and the example app in a real Chromium, against the real service: the page on
 * http://localhost:<port>, the API on another localhost port (same site, another origin), a
 * foreign page on 127.0.0.1 (another site).
 */
describe('the browser story: SDK and example app in Chromium', () => {
  let t: TestApp;
  let sink: SmtpSink;
  let spa: SpaServer;
  let foreign: SpaServer;
  let browser: Browser;
  let apiUrl: string;

  beforeAll(async () => {
    // The page loads the SDK as built; build it here so the suite never runs a stale one.
    execFileSync(process.execPath, [TSC, '-p', 'client/tsconfig.build.json'], { stdio: 'inherit' });
    if (!existsSync(CHROMIUM)) {
      throw new Error(
        `Chromium is not at ${CHROMIUM}: install it (apt-get install chromium) or set CHROMIUM_PATH`,
      );
    }
    const apiPort = await freePort();
    apiUrl = `http://localhost:${apiPort}/api/v1`;
    spa = await startSpaServer({ port: 0, host: 'localhost', apiUrl });
    foreign = await startSpaServer({ port: 0, host: '127.0.0.1', apiUrl });
    sink = await new SmtpSink().start();
    t = await startTestApp({
      CORS_ORIGINS: spa.url,
      SMTP_URL: sink.url,
      ACCESS_TOKEN_TTL: String(ACCESS_TTL_S),
      PUBLIC_URL: `http://localhost:${apiPort}`,
    });
    await t.app.listen(apiPort, 'localhost');
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    });
  });

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await sink?.stop();
    await spa?.close();
    await foreign?.close();
  });

  let context: BrowserContext;
  beforeEach(async () => {
    context = await browser.newContext();
  });
  afterEach(() => context.close());

  /** A tab of the example app, counting the refresh requests it sends. */
  async function openApp(path = '/') {
    const page = await context.newPage();
    const refreshes = { count: 0, refusedCalls: 0 };
    page.on('request', (request) => {
      if (request.method() === 'POST' && request.url().endsWith('/auth/refresh')) {
        refreshes.count++;
      }
    });
    page.on('response', (response) => {
      if (response.url().endsWith('/auth/verify-token') && response.status() === 401) {
        refreshes.refusedCalls++;
      }
    });
    await page.goto(`${spa.url}${path}`);
    await page.waitForSelector('body[data-ready="true"]');
    return { page, refreshes };
  }

  async function logInThroughPage(page: Page, credentials: { email: string; password: string }) {
    await page.fill('#login-form [name=email]', credentials.email);
    await page.fill('#login-form [name=password]', credentials.password);
    await page.click('#login-form button');
    await page.waitForSelector('#signed-in:not([hidden])');
  }

  /** Counting starts now: a page opened signed out has already tried one refresh. */
  function resetCounts(...tabs: Array<{ refreshes: { count: number; refusedCalls: number } }>) {
    for (const tab of tabs) Object.assign(tab.refreshes, { count: 0, refusedCalls: 0 });
  }

  /** `client.fetch` of a protected route from inside the page; resolves with the status. */
  function protectedCall(page: Page): Promise<number> {
    return page.evaluate(async (api) => {
      const auth = (window as unknown as { auth: { fetch(url: string): Promise<Response> } }).auth;
      return (await auth.fetch(`${api}/auth/verify-token`)).status;
    }, apiUrl);
  }

  const accessExpiry = () =>
    new Promise((resolve) => setTimeout(resolve, ACCESS_TTL_S * 1000 + 600));
  const events = (page: Page) => page.locator('#events li').allTextContents();

  it('registers, verifies through the mailed link, logs in and shows the user, with HttpOnly cookies', async () => {
    const { page } = await openApp();
    expect(await page.textContent('#status')).toBe('Signed out');
    const credentials = uniqueUser('browser');

    await page.fill('#register-form [name=email]', credentials.email);
    await page.fill('#register-form [name=username]', credentials.username);
    await page.fill('#register-form [name=password]', credentials.password);
    await page.click('#register-form button');
    await page.waitForFunction(() => document.querySelectorAll('#events li').length > 0);
    await waitFor(() => sink.to(credentials.email.toLowerCase()).length > 0);
    const mail = sink.to(credentials.email.toLowerCase())[0];
    expect(new URL(mail.link).origin).toBe(spa.url);

    await page.goto(mail.link);
    await page.waitForSelector('body[data-ready="true"]');
    expect((await events(page)).join('\n')).toContain(`email verified for ${credentials.email}`);
    expect(new URL(page.url()).search).toBe('');

    await logInThroughPage(page, credentials);
    expect(await page.textContent('#status')).toBe(`Signed in as ${credentials.username}`);
    expect(await page.textContent('#user')).toContain('Email verifiedyes');
    await page.click('#call-protected');
    await page.waitForSelector('#protected-result:not(:empty)');
    expect(await page.textContent('#protected-result')).toMatch(/^200 /);
    // The README's picture of the example: SPA_SCREENSHOT=docs/images/example-spa.png
    if (process.env.SPA_SCREENSHOT) await page.screenshot({ path: process.env.SPA_SCREENSHOT });

    expect(await page.evaluate(() => document.cookie)).not.toMatch(/access_token|refresh_token/);
    const cookies = await context.cookies(`${apiUrl}/auth/refresh`);
    const byName = Object.fromEntries(cookies.map((cookie) => [cookie.name, cookie]));
    expect(byName.access_token?.httpOnly).toBe(true);
    expect(byName.refresh_token?.httpOnly).toBe(true);
  });

  it('renews an expired access token through one automatic refresh', async () => {
    const tab = await openApp();
    const { page, refreshes } = tab;
    await logInThroughPage(page, (await registerAndLogin(t)).credentials);
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
    const tab = await openApp();
    const { page, refreshes } = tab;
    await logInThroughPage(page, (await registerAndLogin(t)).credentials);
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
    const first = await openApp();
    const { credentials } = await registerAndLogin(t);
    await logInThroughPage(first.page, credentials);
    const second = await openApp();
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
    const first = await openApp();
    await logInThroughPage(first.page, (await registerAndLogin(t)).credentials);
    const second = await openApp();
    resetCounts(first, second);

    await first.page.click('#logout');
    await first.page.waitForSelector('#signed-out:not([hidden])');

    expect(await first.page.textContent('#status')).toBe('Signed out');
    await second.page.waitForFunction(() =>
      [...document.querySelectorAll('#events li')].some((li) =>
        li.textContent?.includes('session ended (logout)'),
      ),
    );
    expect(await second.page.textContent('#status')).toBe('Signed out');
    expect(await protectedCall(first.page)).toBe(401);
    expect(await protectedCall(second.page)).toBe(401);
    expect(first.refreshes.count + second.refreshes.count).toBe(0);
  });

  it('tells the app when the session was ended elsewhere (logout on another device)', async () => {
    const { page } = await openApp();
    const user = await registerAndLogin(t);
    await logInThroughPage(page, user.credentials);
    const otherDevice = await login(t, user.credentials);
    await t
      .http()
      .post('/api/v1/auth/logout')
      .set('Authorization', `Bearer ${otherDevice.access}`)
      .expect(200);

    expect(await protectedCall(page)).toBe(401);

    expect((await events(page)).join('\n')).toContain('session ended (refresh-failed)');
    expect(await page.textContent('#status')).toBe('Your session has ended, log in again');
  });

  it('does not let a page on a foreign origin read the API’s answers', async () => {
    const { page } = await openApp();
    const user = await registerAndLogin(t);
    await logInThroughPage(page, user.credentials);
    const intruder = await context.newPage();
    await intruder.goto(`${foreign.url}/`);

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
    const logout = await t
      .http()
      .post('/api/v1/auth/logout')
      .set('Origin', foreign.url)
      .set('Cookie', (await context.cookies(apiUrl)).map((c) => `${c.name}=${c.value}`).join('; '));
    expectError(logout, 403, 'FORBIDDEN_ORIGIN');
  });
  it('renders Swagger UI at /api/docs under its policy, every operation listed', async () => {
    const page = await context.newPage();
    const blocked: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) blocked.push(message.text());
    });
    await page.goto(apiUrl.replace('/api/v1', '/api/docs'));
    await page.waitForSelector('.opblock', { timeout: 15_000 });
    const operations = await page.locator('.opblock').count();
    const documented = Object.values(
      (JSON.parse(readFileSync('openapi.json', 'utf8')) as { paths: Record<string, object> }).paths,
    ).reduce((count, operations) => count + Object.keys(operations).length, 0);
    expect(operations).toBe(documented);
    expect(await page.title()).toBe('Auth Service API');
    expect(blocked).toEqual([]);
  });
});

async function waitFor(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('Timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
