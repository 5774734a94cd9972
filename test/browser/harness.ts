import { existsSync } from 'node:fs';
import { Browser, BrowserContext, Page, chromium } from 'playwright-core';
import { SpaServer, startSpaServer } from '../../examples/spa/server';
import { freePort } from '../support/free-port';
import { SmtpSink } from '../support/mailbox';
import { TcpProxy } from '../support/tcp-proxy';
import { TestApp, startTestApp } from '../support/test-app';
import { TestDatabase } from '../support/test-database';

/** Debian's Chromium; never a downloaded browser. */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * The service, the example app on its own origin (http://localhost:<port>), a foreign page on
 * 127.0.0.1 (another site), an SMTP sink and a headless Chromium. The browser reaches the API
 * through a TCP proxy the suite owns, so a test can take the service away from the page as a
 * network failure would (`api.cut()`, `api.restore()`).
 */
export interface Harness {
  t: TestApp;
  sink: SmtpSink;
  spa: SpaServer;
  foreign: SpaServer;
  browser: Browser;
  /** `http://localhost:<proxy port>/api/v1`, as the page sees it. */
  apiUrl: string;
  api: TcpProxy;
  close(): Promise<void>;
}

export async function startHarness(
  env: Record<string, string> = {},
  options: {
    /** The service's database, when the suite must reach it another way (through a proxy). */
    database?: TestDatabase;
  } = {},
): Promise<Harness> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `Chromium is not at ${CHROMIUM}: install it (apt-get install chromium) or set CHROMIUM_PATH`,
    );
  }
  const servicePort = await freePort();
  const api = await new TcpProxy('127.0.0.1', servicePort).start();
  const apiUrl = `http://localhost:${api.port}/api/v1`;
  const spa = await startSpaServer({ port: 0, host: 'localhost', apiUrl });
  const foreign = await startSpaServer({ port: 0, host: '127.0.0.1', apiUrl });
  const sink = await new SmtpSink().start();
  const t = await startTestApp(
    {
      CORS_ORIGINS: spa.url,
      SMTP_URL: sink.url,
      PUBLIC_URL: `http://localhost:${api.port}`,
      ...env,
    },
    options,
  );
  await t.app.listen(servicePort, '127.0.0.1');
  const browser = await chromium.launch({
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
  return {
    t,
    sink,
    spa,
    foreign,
    browser,
    apiUrl,
    api,
    close: async () => {
      await browser.close();
      await t.close();
      await api.stop();
      await sink.stop();
      await spa.close();
      await foreign.close();
    },
  };
}

/** A tab of the example app and what it saw: console errors, failed requests, refreshes. */
export interface AppTab {
  page: Page;
  refreshes: { count: number; refusedCalls: number };
  /** Console errors and uncaught exceptions, as a developer would see them in DevTools. */
  consoleErrors: string[];
  /** Answers of 400 and above, and requests that got no answer, from the first load on. */
  failures: string[];
}

export async function openApp(
  context: BrowserContext,
  spaUrl: string,
  path = '/',
): Promise<AppTab> {
  const page = await context.newPage();
  const tab: AppTab = {
    page,
    refreshes: { count: 0, refusedCalls: 0 },
    consoleErrors: [],
    failures: [],
  };
  page.on('console', (message) => {
    if (message.type() === 'error') tab.consoleErrors.push(message.text());
  });
  page.on('pageerror', (error) => tab.consoleErrors.push(String(error)));
  page.on('request', (request) => {
    if (request.method() === 'POST' && request.url().endsWith('/auth/refresh')) {
      tab.refreshes.count++;
    }
  });
  page.on('response', (response) => {
    if (response.url().endsWith('/auth/verify-token') && response.status() === 401) {
      tab.refreshes.refusedCalls++;
    }
    if (response.status() >= 400) tab.failures.push(`${response.status()} ${response.url()}`);
  });
  page.on('requestfailed', (request) => {
    // A navigation cancels what the page was still loading: nobody sees that as an error.
    const reason = request.failure()?.errorText ?? '';
    if (reason !== 'net::ERR_ABORTED') tab.failures.push(`${reason} ${request.url()}`);
  });
  await page.goto(`${spaUrl}${path}`);
  await page.waitForSelector('body[data-ready="true"]');
  return tab;
}

export async function logInThroughPage(
  page: Page,
  credentials: { email: string; password: string },
): Promise<void> {
  await page.fill('#login-email', credentials.email);
  await page.fill('#login-password', credentials.password);
  await page.click('#login-form button');
  await page.waitForSelector('#signed-in:not([hidden])');
}

/**
 * A background tab the browser throttles (its timers wait a minute and more) or a laptop asleep:
 * the pages' timers never fire, the SDK's renewal ahead of the access token's expiry with them,
 * while time and the network go on. So the token does expire, and a call finds out with a 401:
 * the refresh and retry that follow are what keep the session. Call before opening the pages.
 * (Playwright's clock would also stop `Date.now`, which real sleep does not, and on which the
 * SDK's ordering of requests and refreshes relies.)
 */
export async function timersNeverFire(context: BrowserContext): Promise<void> {
  await context.addInitScript(() => {
    window.setTimeout = (() => 0) as unknown as typeof window.setTimeout;
  });
}

/** Counting starts now: a page opened signed out has already asked for its session. */
export function resetCounts(...tabs: AppTab[]): void {
  for (const tab of tabs) Object.assign(tab.refreshes, { count: 0, refusedCalls: 0 });
}

export async function waitFor(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('Timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/**
 * The code an authenticator app shows, read as a person would type it: not in the last seconds
 * of its 30-second step. The app offers the oldest code the service still accepts (one step
 * back), which the service refuses once the next step begins; typing and sending take a moment.
 */
export async function codeToType(app: { code(): Promise<string> }): Promise<string> {
  const left = 30_000 - (Date.now() % 30_000);
  if (left < 3_000) await new Promise((resolve) => setTimeout(resolve, left + 100));
  return app.code();
}
