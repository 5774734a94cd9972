import { BrowserContext, Page } from 'playwright-core';
import { UserDirectory } from '../../src/users/user-directory.service';
import { registerAndLogin, uniqueUser } from '../support/auth-helpers';
import { WebhookReceiver } from '../support/webhook-receiver';
import {
  Harness,
  VIEWPORTS,
  axeViolations,
  logInThroughPage,
  openApp,
  placeOf,
  resultAfter,
  startHarness,
} from './harness';

/**
 * Issue 35's webhooks page of the example app, in Chromium against the service, with a receiver
 * on loopback: an administrator lists the endpoints, adds one (its secret shown once), sends a
 * test event, reads the deliveries by status and sends a failed one again. Others never see it.
 */
describe('the example app: the administrators’ webhooks page', () => {
  let h: Harness;
  let receiver: WebhookReceiver;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    // One retry a second after the first attempt: a receiver that answers 500 fails fast.
    h = await startHarness({ WEBHOOK_RETRY_SCHEDULE: '1', WEBHOOK_TIMEOUT_MS: '2000' });
  });
  afterAll(async () => {
    await h?.close();
    await receiver?.close();
  });
  afterEach(async () => {
    for (const context of contexts.splice(0)) await context.close();
  });

  async function signedIn(viewport: { width: number; height: number }, role: 'admin' | 'user') {
    const person = await registerAndLogin(
      h.t,
      uniqueUser(role === 'admin' ? 'hookadmin' : 'hookuser'),
    );
    if (role === 'admin') await h.t.app.get(UserDirectory).setRole(person.user.id, 'admin');
    const context = await h.browser.newContext({ viewport });
    contexts.push(context);
    const tab = await openApp(context, h.spa.url);
    await logInThroughPage(tab.page, person.credentials);
    return tab;
  }
  const text = async (page: Page, selector: string) => (await page.innerText(selector)).trim();
  const deliveryTexts = (page: Page) =>
    page.locator('#webhook-delivery-list li > div:first-child').allInnerTexts();

  it('is not there for someone who is not an administrator', async () => {
    const { page, failures } = await signedIn(VIEWPORTS.desktop, 'user');
    expect(await page.isVisible('#webhooks')).toBe(false);
    // Not even asked: the page does not call the administration routes for them.
    expect(failures).toEqual([]);
  });

  for (const [size, viewport] of Object.entries(VIEWPORTS)) {
    it(`lists, adds, tests and replays, at ${size} size`, async () => {
      const path = `/hooks-${size}`;
      const { page, failures, consoleErrors } = await signedIn(viewport, 'admin');
      await page.waitForSelector('#webhooks:not([hidden])');
      // Listed when asked (the sign-in is recent: no confirmation).
      await page.click('#webhooks-show');
      await page.waitForSelector('#webhooks-status:not(:empty)');
      expect(await text(page, '#webhooks-status')).toMatch(/^(No endpoints yet|\d+ endpoints?)\.$/);
      expect(await page.isVisible('#webhooks-show')).toBe(false);

      // A refused address is said beside its field, in the service's words.
      await page.fill('#webhook-url', 'not an address');
      await page.click('#webhook-add-form [type=submit]');
      await page.waitForSelector('#webhook-url-error');
      expect(await page.getAttribute('#webhook-url', 'aria-invalid')).toBe('true');
      expect(await text(page, '#webhook-url-error')).toBe('url must be an absolute http(s) URL');
      expect(await axeViolations(page)).toEqual([]);

      // Added: the secret, shown once, is the one the receiver's deliveries verify with.
      await page.fill('#webhook-url', receiver.url(path));
      await page.fill('#webhook-events', 'user.created, user.updated');
      await page.click('#webhook-add-form [type=submit]');
      await page.waitForSelector('#webhook-secret:not([hidden])');
      const secret = await text(page, '#webhook-secret-text');
      expect(secret).toMatch(/^whsec_/);
      expect((await placeOf(page, '#webhook-secret-title')).focused).toBe(true);
      expect(await axeViolations(page)).toEqual([]);
      receiver.trust(path, secret);
      await page.click('#webhook-secret-done');
      expect(await page.isVisible('#webhook-secret')).toBe(false);
      const item = page.locator(`#webhook-list li:has-text("${receiver.url(path)}")`);
      expect((await item.innerText()).split('\n').map((line) => line.trim())).toEqual(
        expect.arrayContaining([receiver.url(path), 'Enabled · user.created, user.updated']),
      );

      // The receiver answers 500: the test event is tried twice, then it failed.
      receiver.answer(path, 500);
      const queued = await resultAfter(page, 'webhooks', () =>
        item.getByRole('button', { name: `Send a test event to ${receiver.url(path)}` }).click(),
      );
      expect(queued).toBe(`A test event is on its way to ${receiver.url(path)}.`);
      await receiver.waitFor(path, 2);
      expect(receiver.at(path).every((entry) => entry.verifiedBy.length === 1)).toBe(true);
      await item.getByRole('button', { name: `Deliveries to ${receiver.url(path)}` }).click();
      await page.waitForSelector('#webhook-deliveries:not([hidden])');
      expect((await placeOf(page, '#webhook-deliveries-title')).focused).toBe(true);
      await page.selectOption('#webhook-delivery-status', 'failed');
      await page.waitForFunction(
        () =>
          document.querySelector('#webhook-deliveries-status')?.textContent ===
          '1 failed delivery, newest first.',
        undefined,
        { timeout: 10_000 },
      );
      expect(await deliveryTexts(page)).toEqual(['webhook.test: failed']);
      expect(await text(page, '#webhook-delivery-list li .hint')).toMatch(
        /· 2 attempts · The receiver answered 500$/,
      );
      expect(await axeViolations(page)).toEqual([]);

      // The receiver is fixed; sending again delivers the same message (same webhook-id).
      receiver.answer(path, 200);
      const again = await resultAfter(page, 'webhook-deliveries', () =>
        page.getByRole('button', { name: 'Send the webhook.test event again' }).click(),
      );
      expect(again).toBe('The webhook.test event is on its way again.');
      const taken = await receiver.waitFor(path, 3);
      expect(new Set(taken.map((entry) => entry.id)).size).toBe(1);
      await page.selectOption('#webhook-delivery-status', 'delivered');
      await page.waitForFunction(
        () =>
          document.querySelector('#webhook-deliveries-status')?.textContent ===
          '1 delivered delivery, newest first.',
        undefined,
        { timeout: 10_000 },
      );
      expect(await deliveryTexts(page)).toEqual(['webhook.test: delivered']);
      expect(await page.locator('#webhook-delivery-list button').count()).toBe(0);
      await page.selectOption('#webhook-delivery-status', 'failed');
      await page.waitForFunction(
        () =>
          document.querySelector('#webhook-deliveries-status')?.textContent ===
          'No failed deliveries.',
      );
      expect(await axeViolations(page)).toEqual([]);

      // Nothing sideways on a phone: the card is no wider than the window.
      const width = await page.locator('#webhooks').evaluate((card) => card.scrollWidth);
      expect(width).toBeLessThanOrEqual(viewport.width);
      // The only refusal was the address that is none.
      expect(failures).toEqual([`400 ${h.apiUrl}/admin/webhooks`]);
      expect(consoleErrors).toHaveLength(1);
    }, 60_000);
  }
});
