import { BrowserContext, Page } from 'playwright-core';
import { registerAndLogin } from '../support/auth-helpers';
import { AppTab, Harness, logInThroughPage, openApp, startHarness } from './harness';

const ACCESS_TTL_S = 2;
/** Several access lifetimes. */
const VISIT_MS = 4 * ACCESS_TTL_S * 1000 + 500;

/**
 * A signed-in visit that outlasts its access token several times over, in Chromium against the
 * real service (2-second access tokens): the SDK renews the session ahead of each expiry, so no
 * request of the page is ever refused with a 401 (which Chromium prints as a console error),
 * and the tabs of one browser renew once between them.
 */
describe('renewing the session ahead of the access token’s expiry, in Chromium', () => {
  let h: Harness;
  let context: BrowserContext;

  beforeAll(async () => {
    h = await startHarness({ ACCESS_TOKEN_TTL: String(ACCESS_TTL_S) });
  });
  afterAll(() => h?.close());
  beforeEach(async () => {
    context = await h.browser.newContext();
  });
  afterEach(() => context.close());

  /** `auth.fetch` of a protected route from inside the page; resolves with the status. */
  function protectedCall(page: Page): Promise<number> {
    return page.evaluate(async (api) => {
      const auth = (window as unknown as { auth: { fetch(url: string): Promise<Response> } }).auth;
      return (await auth.fetch(`${api}/auth/verify-token`)).status;
    }, h.apiUrl);
  }

  /** The app's own button, as a person would press it; resolves with what it shows. */
  async function pressProtected(page: Page): Promise<string> {
    await page.evaluate(() => {
      document.querySelector('#protected-result')!.textContent = '';
    });
    await page.click('#call-protected');
    await page.waitForSelector('#protected-result:not(:empty)');
    return (await page.textContent('#protected-result')) ?? '';
  }

  /** Calls a protected route from every tab, about every 300 ms, for `ms`. */
  async function stayAndCall(tabs: AppTab[], ms: number): Promise<number[]> {
    const statuses: number[] = [];
    const end = Date.now() + ms;
    for (let round = 0; Date.now() < end; round++) {
      for (const tab of tabs) {
        if (round % 5 === 4) statuses.push(Number((await pressProtected(tab.page)).slice(0, 3)));
        else statuses.push(await protectedCall(tab.page));
      }
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
    return statuses;
  }

  it('keeps a signed-in page open over several lifetimes with no 401 and no console error', async () => {
    const tab = await openApp(context, h.spa.url);
    await logInThroughPage(tab.page, (await registerAndLogin(h.t)).credentials);

    const statuses = await stayAndCall([tab], VISIT_MS);

    expect(new Set(statuses)).toEqual(new Set([200]));
    expect(tab.failures).toEqual([]);
    expect(tab.consoleErrors).toEqual([]);
    expect(tab.refreshes.refusedCalls).toBe(0);
    // Renewed all along: at least once a lifetime.
    expect(tab.refreshes.count).toBeGreaterThanOrEqual(VISIT_MS / (ACCESS_TTL_S * 1000));
    expect(await tab.page.textContent('#status')).toMatch(/^Signed in as /);
  });

  it('renews once between two tabs, neither of them refused, and a tab opened later joins in', async () => {
    const first = await openApp(context, h.spa.url);
    await logInThroughPage(first.page, (await registerAndLogin(h.t)).credentials);
    const second = await openApp(context, h.spa.url);
    expect(await second.page.textContent('#status')).toMatch(/^Signed in as /);

    const before = first.refreshes.count + second.refreshes.count;
    const started = Date.now();
    const statuses = await stayAndCall([first, second], VISIT_MS);
    const elapsed = Date.now() - started;

    expect(new Set(statuses)).toEqual(new Set([200]));
    for (const tab of [first, second]) {
      expect(tab.failures).toEqual([]);
      expect(tab.consoleErrors).toEqual([]);
    }
    // Counted over the visit only: the login and the second tab's opening renewed too.
    const refreshes = first.refreshes.count + second.refreshes.count - before;
    expect(refreshes).toBeGreaterThanOrEqual(elapsed / (ACCESS_TTL_S * 1000));
    // One renewal per turn between them (a turn is half a second at the least for a 2-second
    // token), not one per tab: two tabs renewing each on its own would make twice as many. The
    // bound sits between the two, since a loaded machine stretches a turn's edges.
    const turns = elapsed / 500;
    expect(refreshes).toBeLessThanOrEqual(1.5 * turns);
  });
});
