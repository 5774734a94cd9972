import { existsSync, readFileSync } from 'node:fs';
import { Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { Browser, BrowserContext, Page, chromium } from 'playwright-core';
import { SpaServer, startSpaServer } from '../../examples/spa/server';
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
  // The service listens last (its URL, the proxy's, goes into its configuration), on a port the
  // system gives it then: one probed free at the start could be taken by another suite's
  // connection meanwhile (EADDRINUSE).
  const api = await new TcpProxy('127.0.0.1', 0).start();
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
  await t.app.listen(0, '127.0.0.1');
  const server = t.app.getHttpServer() as Server;
  api.retarget((server.address() as AddressInfo).port);
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
  // The login is one task of several: its form shows at /#log-in (or with none named).
  if (await page.isHidden('#task-log-in')) await page.evaluate(() => (location.hash = 'log-in'));
  await page.fill('#login-email', credentials.email);
  await page.fill('#login-password', credentials.password);
  await page.click('#login-form [type=submit]');
  // Its cards loaded: nothing moves under what the test does next.
  await page.waitForSelector('#signed-in:not([hidden]):not([aria-busy])');
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

/** The two window sizes every message is checked at: a desktop and a phone. */
export const VIEWPORTS = {
  desktop: { width: 1280, height: 800 },
  phone: { width: 390, height: 844 },
} as const;

/**
 * Where `selector` is: its box, and whether all of it is inside the window without scrolling
 * (what a person sees where they are; a message above or below the fold is one they miss).
 */
export async function placeOf(page: Page, selector: string) {
  return page.locator(selector).evaluate((element) => {
    const box = element.getBoundingClientRect();
    return {
      inView:
        box.width > 0 &&
        box.height > 0 &&
        // A pixel's slack: scrolling lands on fractions of one.
        box.top >= -1 &&
        box.left >= -1 &&
        box.bottom <= window.innerHeight + 1 &&
        box.right <= window.innerWidth + 1,
      focused: document.activeElement === element,
      box: { top: Math.round(box.top), bottom: Math.round(box.bottom) },
      viewport: { width: window.innerWidth, height: window.innerHeight },
    };
  });
}

/**
 * Runs `action` and waits for what it said beside `region` (the id of a form or a card, the
 * result area being `#<region>-result`), which must be in view and have the focus, as a person
 * and a screen reader meet it. Returns its text.
 */
export async function resultAfter(
  page: Page,
  region: string,
  action: () => Promise<unknown>,
): Promise<string> {
  const area = `#${region}-result`;
  await action();
  await page.waitForSelector(`${area}:not(:empty)`);
  const place = await placeOf(page, area);
  expect({ area, inView: place.inView, focused: place.focused }).toEqual({
    area,
    inView: true,
    focused: true,
  });
  return (await page.textContent(area))?.trim() ?? '';
}

/** What `#<region>-result` says now ('' when nothing). */
export async function resultOf(page: Page, region: string): Promise<string> {
  return (await page.textContent(`#${region}-result`))?.trim() ?? '';
}

/**
 * Runs `action` and waits for the words beside `input` (`#<input id>-error`): in view, the input
 * focused and described by them. Returns them.
 */
export async function fieldErrorAfter(
  page: Page,
  input: string,
  action: () => Promise<unknown>,
): Promise<string> {
  const note = `${input}-error`;
  await action();
  await page.waitForSelector(note);
  const place = await placeOf(page, note);
  const field = await placeOf(page, input);
  expect({ note, inView: place.inView, fieldFocused: field.focused }).toEqual({
    note,
    inView: true,
    fieldFocused: true,
  });
  expect(await page.getAttribute(input, 'aria-invalid')).toBe('true');
  expect((await page.getAttribute(input, 'aria-describedby'))?.split(' ')).toContain(note.slice(1));
  return (await page.textContent(note))?.trim() ?? '';
}

const AXE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/**
 * axe-core's WCAG 2.2 A/AA rules on what the page shows now: the violations, each as
 * "rule: target" (none expected). Run through the DevTools protocol, which the page's CSP (no
 * inline script) does not stop.
 */
export async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE);
  return page.evaluate(async () => {
    const axe = (window as unknown as { axe: AxeRunner }).axe;
    const result = await axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'] },
    });
    return result.violations.flatMap((violation) =>
      violation.nodes.map((node) => `${violation.id}: ${node.target.join(' ')}`),
    );
  });
}
type AxeRunner = {
  run(
    context: Document,
    options: object,
  ): Promise<{ violations: Array<{ id: string; nodes: Array<{ target: string[] }> }> }>;
};
