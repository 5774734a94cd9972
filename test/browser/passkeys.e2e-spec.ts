import { BrowserContext, CDPSession, Page } from 'playwright-core';
import * as jwt from 'jsonwebtoken';
import { SpaServer, startSpaServer } from '../../examples/spa/server';
import { registerUser, uniqueUser } from '../support/auth-helpers';
import {
  AppTab,
  Harness,
  VIEWPORTS,
  axeViolations,
  fieldErrorAfter,
  logInThroughPage,
  openApp,
  placeOf,
  resultAfter,
  resultOf,
  startHarness,
} from './harness';
import { checkScreenshots, screenshot } from './screenshots';

interface VirtualAuthenticator {
  cdp: CDPSession;
  id: string;
}

/**
 * Issue 25: passkeys in the example app, through the SDK, in Chromium against the real service,
 * with Chromium's virtual authenticator (DevTools `WebAuthn` domain: CTAP2, built in, resident
 * keys, user verification) standing in for Touch ID or Windows Hello.
 */
describe('passkeys in the example app', () => {
  let h: Harness;
  let context: BrowserContext;
  /** Another origin on the relying party's host: not one WEBAUTHN_ORIGINS lists. */
  let lookalike: SpaServer;

  beforeAll(async () => {
    h = await startHarness();
    lookalike = await startSpaServer({ port: 0, host: 'localhost', apiUrl: h.apiUrl });
  });
  afterAll(async () => {
    await lookalike?.close();
    await h?.close();
  });
  beforeEach(async () => {
    context = await h.browser.newContext({ viewport: { width: 1000, height: 760 } });
  });
  afterEach(() => context.close());

  const text = async (page: Page, selector: string) => (await page.innerText(selector)).trim();
  const amr = async () => {
    const access = (await context.cookies(h.apiUrl)).find((c) => c.name === 'access_token');
    return (jwt.decode(access?.value ?? '') as { amr?: string[] } | null)?.amr;
  };

  /** A platform authenticator in this tab, as a laptop's fingerprint reader would be. */
  async function authenticatorIn(page: Page): Promise<VirtualAuthenticator> {
    const cdp = await context.newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: {
        protocol: 'ctap2',
        transport: 'internal',
        hasResidentKey: true,
        hasUserVerification: true,
        isUserVerified: true,
        automaticPresenceSimulation: true,
      },
    });
    return { cdp, id: authenticatorId };
  }

  /** The same passkey in another tab's authenticator (the tabs of one device share it). */
  async function copyPasskeys(from: VirtualAuthenticator, to: VirtualAuthenticator) {
    const { credentials } = await from.cdp.send('WebAuthn.getCredentials', {
      authenticatorId: from.id,
    });
    for (const credential of credentials) {
      await to.cdp.send('WebAuthn.addCredential', { authenticatorId: to.id, credential });
    }
    return credentials.length;
  }

  /** Signs up and in with a password, then adds a passkey on the account page. */
  async function withPasskey(tab: AppTab, name = 'Laptop') {
    const { credentials } = await registerUser(h.t, uniqueUser('spapk'));
    const authenticator = await authenticatorIn(tab.page);
    await logInThroughPage(tab.page, credentials);
    await tab.page.waitForFunction(() =>
      document.querySelector('#passkeys-status')?.textContent?.startsWith('None yet'),
    );
    await tab.page.fill('#passkey-name', name);
    const added = await resultAfter(tab.page, 'passkey-add-form', () =>
      tab.page.click('#passkey-add-form [type=submit]'),
    );
    expect(added).toBe(
      `The passkey “${name}” was added. Sign in with it next time, or use it after your password.`,
    );
    return { credentials, authenticator };
  }

  async function logOut(page: Page) {
    await page.click('#logout');
    await page.waitForSelector('#signed-out:not([hidden])');
  }

  /**
   * Signs in as a person would: the passkey button of the "Other ways to sign in" card, in view
   * beside the login form.
   */
  async function passkeySignIn(page: Page) {
    await page.waitForSelector('#task-log-in:not([hidden]) #other-ways #passkey-sign-in');
    expect((await placeOf(page, '#other-ways #passkey-sign-in')).inView).toBe(true);
    await page.click('#other-ways #passkey-sign-in');
  }

  it('adds a passkey, signs in with it alone (amr hwk), renames and removes it, with no console error', async () => {
    const tab = await openApp(context, h.spa.url);
    const { page } = tab;
    const { credentials } = await withPasskey(tab);
    await page.waitForSelector('#passkey-list li');
    expect(await page.inputValue('#passkey-list li input[name="name"]')).toBe('Laptop');
    expect(await text(page, '#passkeys-status')).toBe(
      '1 passkey: sign in with it instead of your password.',
    );
    // A passkey is a second factor: the two-step section says so.
    expect(await text(page, '#two-step-status')).toBe(
      'The authenticator app is off. Your passkey is your second step: after your password, signing in asks for it.',
    );
    expect(await axeViolations(page)).toEqual([]);
    await page.locator('#passkeys').scrollIntoViewIfNeeded();
    await screenshot(page, 'passkeys');

    await logOut(page);
    await passkeySignIn(page);
    await page.waitForSelector('#signed-in:not([hidden])');
    expect(await text(page, '#status')).toBe(`Signed in as ${credentials.username}`);
    expect(await amr()).toEqual(['hwk']);

    await page.fill('#passkey-list li input[name="name"]', 'Work laptop');
    expect(
      await resultAfter(page, 'passkeys', () =>
        page.click('#passkey-list li .passkey-rename button'),
      ),
    ).toBe('The passkey was renamed.');
    await page.waitForFunction(
      () =>
        document.querySelector<HTMLInputElement>('#passkey-list li input')?.value === 'Work laptop',
    );
    await page.click('#passkey-list li button.danger');
    expect(await resultAfter(page, 'passkeys', () => page.click('#passkey-remove-confirm'))).toBe(
      'The passkey “Work laptop” was removed: it no longer signs you in.',
    );
    await page.waitForFunction(() => document.querySelectorAll('#passkey-list li').length === 0);

    // The authenticator still holds it; the service no longer takes it.
    await logOut(page);
    expect(await resultAfter(page, 'other-ways', () => passkeySignIn(page))).toBe(
      'That passkey was not accepted. Try again, or sign in with your password.',
    );
    expect(await page.isVisible('#signed-out')).toBe(true);
    expect(tab.consoleErrors.filter((line) => !line.includes('401'))).toEqual([]);
  });

  it.each(Object.entries(VIEWPORTS))(
    'marks an empty name beside its field, asks before removing one, and says what a passkey is for, on a %s',
    async (_size, viewport) => {
      await context.close();
      context = await h.browser.newContext({ viewport });
      // A wait that fails names what it waited for, before the test's own timeout.
      context.setDefaultTimeout(10_000);
      const tab = await openApp(context, h.spa.url);
      const { page } = tab;
      await withPasskey(tab, 'Laptop');
      await page.waitForSelector('#passkey-list li');
      // The authenticator app is off; the passkey is the second step after the password.
      await page.waitForFunction(() =>
        document.querySelector('#two-step-status')?.textContent?.includes('passkey'),
      );
      expect(await text(page, '#two-step-status')).toBe(
        'The authenticator app is off. Your passkey is your second step: after your password, signing in asks for it.',
      );

      // An empty name: said beside the name's field, as the other forms do, and nothing renamed.
      const input = `#${await page.getAttribute('#passkey-list li input[name="name"]', 'id')}`;
      const empty = await fieldErrorAfter(page, input, async () => {
        await page.fill(input, '   ');
        await page.click('#passkey-list li .passkey-rename button');
      });
      expect(empty).toBe('Enter a name for the passkey: 1 to 64 characters, on one line.');
      expect(await resultOf(page, 'passkeys')).toBe('');
      expect(await axeViolations(page)).toEqual([]);
      // Fixed, the mark goes with the save.
      await page.fill(input, 'Work laptop');
      expect(
        await resultAfter(page, 'passkeys', () =>
          page.click('#passkey-list li .passkey-rename button'),
        ),
      ).toBe('The passkey was renamed.');
      expect(await page.locator('#passkey-list .field-error').count()).toBe(0);

      // Removing asks first, in a dialog that holds the focus on the safe answer.
      const remove = '#passkey-list li button.danger';
      await page.click(remove);
      await page.waitForSelector('#passkey-remove-dialog[open]');
      expect(await text(page, '#passkey-remove-title')).toBe('Remove the passkey “Work laptop”?');
      expect(await page.evaluate(() => document.activeElement?.id)).toBe('passkey-remove-cancel');
      // The rename's result was about the rename: this is another action.
      expect(await resultOf(page, 'passkeys')).toBe('');
      expect((await placeOf(page, '#passkey-remove-confirm')).inView).toBe(true);
      expect(await axeViolations(page)).toEqual([]);
      // Escape keeps it, and the focus goes back to its button.
      await page.keyboard.press('Escape');
      await page.waitForSelector('#passkey-remove-dialog', { state: 'hidden' });
      expect(await page.locator('#passkey-list li').count()).toBe(1);
      expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Remove');
      // "Keep it" keeps it too.
      await page.keyboard.press('Enter');
      await page.waitForSelector('#passkey-remove-dialog[open]');
      await page.keyboard.press('Enter');
      await page.waitForSelector('#passkey-remove-dialog', { state: 'hidden' });
      expect(await page.locator('#passkey-list li').count()).toBe(1);
      // Confirmed from the keyboard: gone.
      await page.keyboard.press('Enter');
      await page.waitForSelector('#passkey-remove-dialog[open]');
      expect(
        await resultAfter(page, 'passkeys', async () => {
          await page.keyboard.press('Shift+Tab');
          await page.keyboard.press('Enter');
        }),
      ).toBe('The passkey “Work laptop” was removed: it no longer signs you in.');
      expect(await page.locator('#passkey-list li').count()).toBe(0);
      expect(tab.consoleErrors.filter((line) => !/\b400\b/.test(line))).toEqual([]);
    },
  );

  it('answers the second step after the password with the passkey (amr pwd hwk mfa)', async () => {
    const tab = await openApp(context, h.spa.url);
    const { page } = tab;
    const { credentials } = await withPasskey(tab, 'Phone');
    await logOut(page);
    await page.fill('#login-email', credentials.email);
    await page.fill('#login-password', credentials.password);
    await page.click('#login-form [type=submit]');
    await page.waitForSelector('#second-step:not([hidden])');
    expect(await page.isVisible('#mfa-passkey')).toBe(true);
    expect(await page.isVisible('#mfa-code')).toBe(false);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('mfa-passkey');
    await page.click('#mfa-passkey');
    await page.waitForSelector('#signed-in:not([hidden])');
    expect(await amr()).toEqual(['pwd', 'hwk', 'mfa']);
  });

  it('signs in from another tab with the same passkey, and the first tab follows', async () => {
    const first = await openApp(context, h.spa.url);
    const { authenticator, credentials } = await withPasskey(first);
    await logOut(first.page);
    const second = await openApp(context, h.spa.url);
    expect(await copyPasskeys(authenticator, await authenticatorIn(second.page))).toBe(1);
    await passkeySignIn(second.page);
    await second.page.waitForSelector('#signed-in:not([hidden])');
    // The first tab hears of the sign-in and shows the account too.
    await first.page.waitForSelector('#signed-in:not([hidden])');
    expect(await text(first.page, '#status')).toBe(`Signed in as ${credentials.username}`);
  });

  it('refuses a page on a foreign origin: the browser on another host, the service on another port', async () => {
    const tab = await openApp(context, h.spa.url);
    const { authenticator } = await withPasskey(tab);
    const options = async () => {
      const response = await h.t.http().post('/api/v1/auth/passkey/options').expect(200);
      return (response.body as { data: { options: unknown } }).data.options;
    };
    /**
     * The SDK's own WebAuthn module, as the page loads it, asked to sign. A string, so the page
     * runs it as written (compiled for Node, an `import()` would become a `require`).
     */
    const ceremony = (page: Page, json: unknown) =>
      page.evaluate<{ response?: unknown; error?: string; code?: string }>(
        `import('/vendor/simplewebauthn-browser/index.js')
          .then((sdk) => sdk.startAuthentication({ optionsJSON: ${JSON.stringify(json)} }))
          .then((response) => ({ response }), (error) => ({ error: error.name, code: error.code }))`,
      );

    // 127.0.0.1 is not under the relying party's id (localhost): the browser will not ask.
    const elsewhere = await context.newPage();
    await authenticatorIn(elsewhere);
    await elsewhere.goto(`${h.foreign.url}/`);
    const refusedByBrowser = await ceremony(elsewhere, await options());
    expect(refusedByBrowser.response).toBeUndefined();
    expect(`${refusedByBrowser.error} ${refusedByBrowser.code}`).toMatch(
      /SecurityError|ERROR_INVALID_DOMAIN|ERROR_INVALID_RP_ID/,
    );

    // Another port of localhost: the browser signs, and the service refuses the origin.
    const lookalikePage = await context.newPage();
    await copyPasskeys(authenticator, await authenticatorIn(lookalikePage));
    await lookalikePage.goto(`${lookalike.url}/`);
    const signed = await ceremony(lookalikePage, await options());
    expect(signed.response).toBeDefined();
    const refused = await h.t
      .http()
      .post('/api/v1/auth/passkey/verify')
      .set('Origin', lookalike.url)
      .send({ response: signed.response });
    expect({ status: refused.status, error: refused.body.error }).toEqual({
      status: 401,
      error: 'INVALID_PASSKEY',
    });
  });

  it('keeps the SDK page’s screenshot of passkeys', () => {
    const mine = ['passkeys'] as const;
    expect(checkScreenshots(mine)).toEqual({ stale: [], missing: [], taken: [...mine] });
  });
});
