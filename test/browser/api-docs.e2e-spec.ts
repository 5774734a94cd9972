import { readFileSync } from 'node:fs';
import { BrowserContext, Page } from 'playwright-core';
import { Harness, startHarness } from './harness';

const DOCUMENTED = JSON.parse(readFileSync('openapi.json', 'utf8')) as {
  paths: Record<string, object>;
};

/** What a developer would see in DevTools while using the page. */
interface Watched {
  page: Page;
  consoleErrors: string[];
  /** `securitypolicyviolation` events: what the content policy blocked. */
  violations: () => Promise<string[]>;
  /** Requests to another origin than the service's, and answers of 400 and above. */
  strays: string[];
}

/**
 * The API reference in Chromium at desktop size, served by the real service under its own content
 * policy: every operation listed, one opened, one tried, and nothing blocked, failed or fetched
 * from elsewhere.
 */
describe('the API reference (Swagger UI) in Chromium', () => {
  let h: Harness;
  let origin: string;
  let context: BrowserContext;

  beforeAll(async () => {
    h = await startHarness();
    origin = new URL(h.apiUrl).origin;
  });
  afterAll(() => h?.close());
  beforeEach(async () => {
    context = await h.browser.newContext({ viewport: { width: 1280, height: 800 } });
  });
  afterEach(() => context.close());

  async function openDocs(): Promise<Watched> {
    const page = await context.newPage();
    await page.addInitScript(() => {
      const seen: string[] = [];
      (window as unknown as { violations: string[] }).violations = seen;
      document.addEventListener('securitypolicyviolation', (event) =>
        seen.push(`${event.effectiveDirective} ${event.blockedURI}`),
      );
    });
    const watched: Watched = {
      page,
      consoleErrors: [],
      violations: () =>
        page.evaluate(() => (window as unknown as { violations: string[] }).violations),
      strays: [],
    };
    page.on('console', (message) => {
      if (message.type() === 'error') watched.consoleErrors.push(message.text());
    });
    page.on('pageerror', (error) => watched.consoleErrors.push(String(error)));
    page.on('request', (request) => {
      if (new URL(request.url()).origin !== origin) watched.strays.push(request.url());
    });
    page.on('response', (response) => {
      if (response.status() >= 400) watched.strays.push(`${response.status()} ${response.url()}`);
    });
    page.on('requestfailed', (request) => watched.strays.push(`failed ${request.url()}`));
    await page.goto(`${h.apiUrl}/docs`);
    await page.waitForSelector('.opblock', { timeout: 15_000 });
    return watched;
  }

  it('lists every operation, opens the login operation, and is blocked by nothing', async () => {
    const { page, consoleErrors, violations, strays } = await openDocs();
    expect(await page.title()).toBe('Auth Service API');
    const documented = Object.values(DOCUMENTED.paths).reduce(
      (count, operations) => count + Object.keys(operations).length,
      0,
    );
    expect(await page.locator('.opblock').count()).toBe(documented);

    const login = page.locator('#operations-auth-login');
    await expect(login.locator('.opblock-summary-path').textContent()).resolves.toBe(
      '/api/v1/auth/login',
    );
    await login.locator('.opblock-summary-control').click();
    await login.locator('.opblock-body').waitFor();
    // Its request body and every answer it documents, the error codes among them.
    await expect(login.locator('.opblock-section-request-body').isVisible()).resolves.toBe(true);
    const statuses = await login
      .locator('.responses-table tr.response .response-col_status')
      .allTextContents();
    expect(statuses.map((status) => status.trim())).toEqual(
      expect.arrayContaining(['200', '401', '429']),
    );
    await expect(login.textContent()).resolves.toContain('LOGIN_FAILED');

    expect(await violations()).toEqual([]);
    expect(consoleErrors).toEqual([]);
    expect(strays).toEqual([]);
  });

  it("tries an operation against the service it documents, under the page's policy", async () => {
    const { page, consoleErrors, violations, strays } = await openDocs();
    const liveness = page.locator('#operations-operations-liveness');
    await liveness.locator('.opblock-summary-control').click();
    await liveness.locator('.try-out__btn').click();
    await liveness.locator('.execute').click();
    const status = liveness.locator('.live-responses-table tbody .response-col_status').first();
    await status.waitFor();
    await expect(status.textContent()).resolves.toBe('200');
    await expect(
      liveness
        .locator('.live-responses-table tbody .response-col_description')
        .first()
        .textContent(),
    ).resolves.toContain('"success": true');

    expect(await violations()).toEqual([]);
    expect(consoleErrors).toEqual([]);
    expect(strays).toEqual([]);
  });
});
