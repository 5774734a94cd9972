import { readFile } from 'node:fs/promises';
import { BrowserContext, Page } from 'playwright-core';
import { Authenticator } from '../support/authenticator';
import { cookiesOf, registerUser, uniqueUser } from '../support/auth-helpers';
import {
  AppTab,
  Harness,
  VIEWPORTS,
  axeViolations,
  codeToType,
  fieldErrorAfter,
  logInThroughPage,
  openApp,
  placeOf,
  resultAfter,
  resultOf,
  startHarness,
  waitFor,
} from './harness';
import { checkScreenshots, screenshot } from './screenshots';

/**
 * Issue 24: two-step sign-in in the example app, in Chromium against the real service, with
 * codes computed from the secret the page shows, as an authenticator app would.
 */
describe('two-step sign-in in the example app', () => {
  let h: Harness;
  let context: BrowserContext;

  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h?.close());
  beforeEach(async () => {
    context = await h.browser.newContext({ viewport: { width: 1000, height: 760 } });
    // A wait that fails names what it waited for, before the test's own timeout.
    context.setDefaultTimeout(10_000);
  });
  afterEach(() => context.close());

  /** The text as it reads on the screen (innerText: laid out, spaces collapsed). */
  const text = async (page: Page, selector: string) => (await page.innerText(selector)).trim();
  const focused = (page: Page) => page.evaluate(() => document.activeElement?.id);
  /** What of the input's value is selected, ready to be typed over. */
  const selectedIn = (page: Page, selector: string) =>
    page.$eval(selector, (input: HTMLInputElement) =>
      input.value.slice(input.selectionStart ?? 0, input.selectionEnd ?? 0),
    );
  const recoveryCodes = (page: Page) =>
    page.$$eval('#recovery-list li', (items) => items.map((item) => item.textContent ?? ''));
  const sessionCookies = async () =>
    (await context.cookies(h.apiUrl)).filter((c) => c.name.endsWith('_token')).length;

  /** The password step through the login form; the page then asks for the code. */
  async function passwordStep(page: Page, credentials: { email: string; password: string }) {
    await page.fill('#login-email', credentials.email);
    await page.fill('#login-password', credentials.password);
    await page.click('#login-form [type=submit]');
    await page.waitForSelector('#second-step:not([hidden])');
  }
  async function logOut(page: Page) {
    await page.click('#logout');
    await page.waitForSelector('#signed-out:not([hidden])');
  }

  /** Signs in through the page and switches two-step sign-in on there. */
  async function enrolThroughPage(tab: AppTab, credentials: { email: string; password: string }) {
    const { page } = tab;
    await logInThroughPage(page, credentials);
    await page.waitForFunction(() =>
      document.querySelector('#two-step-status')?.textContent?.startsWith('Off'),
    );
    await page.click('#totp-begin');
    await page.waitForSelector('#totp-enrol:not([hidden])');
    const secret = (await text(page, '#totp-secret')).replace(/\s/g, '');
    return { page, secret, app: new Authenticator(secret) };
  }

  it('switches it on, signs in with a code and with a recovery code, makes new codes and switches it off, with no console error and no failed request', async () => {
    const { credentials } = await registerUser(h.t, uniqueUser('spa2fa'));
    const tab = await openApp(context, h.spa.url);
    const { page } = tab;
    await logInThroughPage(page, credentials);
    await page.waitForFunction(() =>
      document.querySelector('#two-step-status')?.textContent?.startsWith('Off'),
    );
    expect(await text(page, '#two-step-status')).toBe('Off: signing in takes only your password.');
    expect(await page.isVisible('#totp-on')).toBe(false);

    // Switching on: the QR code and the key to type, then a first code.
    await page.click('#totp-begin');
    await page.waitForSelector('#totp-enrol:not([hidden])');
    expect(await focused(page)).toBe('totp-enrol-title');
    expect(await page.isVisible('#totp-begin')).toBe(false);
    const qr = await page.$eval('#totp-qr', (img: HTMLImageElement) => ({
      loaded: img.complete && img.naturalWidth > 0,
      svg: img.src.startsWith('data:image/svg+xml'),
      alt: img.alt,
    }));
    expect(qr).toEqual({
      loaded: true,
      svg: true,
      alt: 'QR code to scan with your authenticator app',
    });
    const shown = await text(page, '#totp-secret');
    // In groups of four, for typing.
    expect(shown).toMatch(/^[A-Z2-7]{4}( [A-Z2-7]{1,4})+$/);
    const secret = shown.replace(/\s/g, '');
    const link = new URL((await page.getAttribute('#totp-link', 'href')) ?? '');
    expect([link.protocol, link.searchParams.get('secret')]).toEqual(['otpauth:', secret]);
    await screenshot(page, 'two-step-enrol');
    const app = new Authenticator(secret);

    // As the app shows it, with its space.
    await page.fill('#totp-code', (await codeToType(app)).replace(/^(\d{3})/, '$1 '));
    await page.click('#totp-confirm-form [type=submit]');
    await page.waitForSelector('#recovery:not([hidden])');
    // The codes say it is on, where the focus is now.
    expect(await text(page, '#recovery-text')).toBe(
      'Two-step sign-in is on. From now on, signing in asks for your password and a code from ' +
        'your authenticator app. If you lose the app, one of these codes signs you in instead.',
    );
    expect(await focused(page)).toBe('recovery-title');
    expect((await placeOf(page, '#recovery-title')).inView).toBe(true);
    expect(await text(page, '#recovery')).toContain('they will not be shown again');
    const codes = await recoveryCodes(page);
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    expect(await page.isVisible('#totp-enrol')).toBe(false);
    expect(await text(page, '#totp-secret')).toBe('');
    expect(await text(page, '#two-step-status')).toBe(
      'On: signing in asks for a code from your authenticator app. 10 recovery codes left.',
    );
    await screenshot(page, 'two-step-codes');
    await waitFor(() =>
      h.sink
        .to(credentials.email.toLowerCase())
        .some((mail) => mail.subject.startsWith('Two-step sign-in is now on')),
    );
    // Once saved, the codes leave the page.
    await page.click('#recovery-done');
    expect(await page.isVisible('#recovery')).toBe(false);
    expect(await recoveryCodes(page)).toEqual([]);
    expect(await focused(page)).toBe('two-step-title');

    // Signing in now takes a code after the password.
    await logOut(page);
    await passwordStep(page, credentials);
    expect(await text(page, '#status')).toBe('One more step to sign in');
    expect(await focused(page)).toBe('mfa-code');
    expect(await page.isVisible('#mfa-recovery-code')).toBe(false);
    expect(await sessionCookies()).toBe(0);
    await screenshot(page, 'second-step');
    await page.fill('#mfa-code', await codeToType(app));
    await page.click('#mfa-form [type=submit]');
    await page.waitForSelector('#signed-in:not([hidden])');
    expect(await text(page, '#status')).toBe(`Signed in as ${credentials.username}`);
    expect(await focused(page)).toBe('account-title');
    expect(await page.inputValue('#mfa-code')).toBe('');

    // Or a recovery code instead, which then counts as used.
    await logOut(page);
    await passwordStep(page, credentials);
    await page.click('#mfa-switch');
    expect(await focused(page)).toBe('mfa-recovery-code');
    expect(await page.isVisible('#mfa-code')).toBe(false);
    expect(await text(page, '#mfa-switch')).toBe('Use a code from the app instead');
    await page.fill('#mfa-recovery-code', codes[0]);
    await page.click('#mfa-form [type=submit]');
    await page.waitForSelector('#signed-in:not([hidden])');
    await page.waitForFunction(() =>
      document.querySelector('#two-step-status')?.textContent?.includes('9 recovery codes left'),
    );

    // New recovery codes, shown once like the first ones.
    await page.click('#recovery-regenerate');
    await page.waitForSelector('#recovery:not([hidden])');
    expect(await text(page, '#recovery-text')).toBe(
      'You have new recovery codes: the old ones no longer work.',
    );
    expect(await focused(page)).toBe('recovery-title');
    expect((await placeOf(page, '#recovery-title')).inView).toBe(true);
    const newCodes = await recoveryCodes(page);
    expect(newCodes).toHaveLength(10);
    expect(newCodes.filter((code) => codes.includes(code))).toEqual([]);
    expect(await text(page, '#two-step-status')).toContain('10 recovery codes left');
    await page.click('#recovery-done');

    // Off again, with a code from the app.
    // Its form is gone: the two-step section says it, and has the focus.
    const off = await resultAfter(page, 'two-step', async () => {
      await page.fill('#totp-disable-code', await codeToType(app));
      await page.click('#totp-disable-form [type=submit]');
    });
    expect(off).toBe('Two-step sign-in is off. Signing in takes only your password now.');
    expect(await text(page, '#two-step-status')).toBe('Off: signing in takes only your password.');
    expect(await page.isVisible('#totp-begin')).toBe(true);
    expect(await focused(page)).toBe('two-step-result');

    // The password alone signs in again.
    await logOut(page);
    await logInThroughPage(page, credentials);

    expect(tab.consoleErrors).toEqual([]);
    expect(tab.failures).toEqual([]);
  });

  it('says what went wrong in plain words: a wrong code, a used recovery code, an expired sign-in; and switches off with the password', async () => {
    const { credentials } = await registerUser(h.t, uniqueUser('spa2fawrong'));
    const tab = await openApp(context, h.spa.url);
    const { page, app } = await enrolThroughPage(tab, credentials);

    // Said beside the code's field, which keeps the focus.
    const wrongFirst = await fieldErrorAfter(page, '#totp-code', async () => {
      await page.fill('#totp-code', '000000');
      await page.click('#totp-confirm-form [type=submit]');
    });
    expect(wrongFirst).toBe(
      'That code is wrong or was already used. Enter the one your app shows now.',
    );
    expect(await resultOf(page, 'totp-confirm-form')).toBe('');
    // Still off, the code selected for the next try.
    expect(await focused(page)).toBe('totp-code');
    expect(await selectedIn(page, '#totp-code')).toBe('000000');
    expect(await text(page, '#two-step-status')).toBe('Off: signing in takes only your password.');
    await page.fill('#totp-code', await codeToType(app));
    await page.click('#totp-confirm-form [type=submit]');
    await page.waitForSelector('#recovery:not([hidden])');
    const [first, second] = await recoveryCodes(page);
    await page.click('#recovery-done');
    await logOut(page);

    // The second step: a wrong code, then a recovery code used already.
    await passwordStep(page, credentials);
    const wrong = await fieldErrorAfter(page, '#mfa-code', async () => {
      await page.fill('#mfa-code', '000000');
      await page.click('#mfa-form [type=submit]');
    });
    expect(wrong).toBe('That code is wrong or was already used. Enter the one your app shows now.');
    expect(await resultOf(page, 'mfa-form')).toBe('');
    expect(await focused(page)).toBe('mfa-code');
    expect(await selectedIn(page, '#mfa-code')).toBe('000000');
    await page.click('#mfa-switch');
    await page.fill('#mfa-recovery-code', first);
    await page.click('#mfa-form [type=submit]');
    await page.waitForSelector('#signed-in:not([hidden])');
    await logOut(page);
    await passwordStep(page, credentials);
    // The step opens on the app's code again.
    expect(await page.isVisible('#mfa-code')).toBe(true);
    await page.click('#mfa-switch');
    const used = await fieldErrorAfter(page, '#mfa-recovery-code', async () => {
      await page.fill('#mfa-recovery-code', first);
      await page.click('#mfa-form [type=submit]');
    });
    expect(used).toBe('That recovery code is wrong or was already used. Try another one.');
    expect(await resultOf(page, 'mfa-form')).toBe('');
    expect(await text(page, '#status')).toBe('One more step to sign in');

    // Cancel goes back to the password.
    await page.click('#mfa-cancel');
    await page.waitForSelector('#signed-out:not([hidden])');
    expect(await text(page, '#status')).toBe('Signed out');

    // A sign-in the account ended meanwhile (a logout elsewhere voids the pending step).
    await passwordStep(page, credentials);
    const elsewhere = cookiesOf(await signedInElsewhere(credentials, app));
    await h.t
      .http()
      .post('/api/v1/auth/logout')
      .set('Authorization', `Bearer ${elsewhere.access_token.value}`)
      .expect(200);
    // Back to the login, which says why.
    const expired = await resultAfter(page, 'login-form', async () => {
      await page.fill('#mfa-code', await codeToType(app));
      await page.click('#mfa-form [type=submit]');
    });
    expect(expired).toBe('This sign-in attempt has expired. Log in again.');
    await page.waitForSelector('#signed-out:not([hidden])');
    expect(await page.isVisible('#task-log-in')).toBe(true);

    // Switched off with the password instead of a code.
    await passwordStep(page, credentials);
    await page.click('#mfa-switch');
    await page.fill('#mfa-recovery-code', second);
    await page.click('#mfa-form [type=submit]');
    await page.waitForSelector('#signed-in:not([hidden])');
    await page.waitForSelector('#totp-on:not([hidden])');
    await page.click('#totp-disable-switch');
    expect(await focused(page)).toBe('totp-disable-password');
    const wrongPassword = await fieldErrorAfter(page, '#totp-disable-password', async () => {
      await page.fill('#totp-disable-password', 'not-my-password');
      await page.click('#totp-disable-form [type=submit]');
    });
    expect(wrongPassword).toBe('That is not your current password.');
    expect(await resultOf(page, 'totp-disable-form')).toBe('');
    const off = await resultAfter(page, 'two-step', async () => {
      await page.fill('#totp-disable-password', credentials.password);
      await page.click('#totp-disable-form [type=submit]');
    });
    expect(off).toBe('Two-step sign-in is off. Signing in takes only your password now.');

    // Only the answers the mistakes above asked for failed.
    const api = h.apiUrl;
    expect(tab.failures).toEqual([
      `401 ${api}/users/me/mfa/totp/confirm`,
      `401 ${api}/auth/mfa/verify`,
      `401 ${api}/auth/mfa/verify`,
      `401 ${api}/auth/mfa/verify`,
      `403 ${api}/users/me/mfa/totp`,
    ]);
    expect(tab.consoleErrors).toHaveLength(tab.failures.length);
    for (const error of tab.consoleErrors) expect(error).toMatch(/^Failed to load resource/);
  });

  it.each(Object.entries(VIEWPORTS))(
    'copies the recovery codes and downloads them as a text file, on a %s',
    async (_size, viewport) => {
      await context.close();
      context = await h.browser.newContext({ viewport });
      context.setDefaultTimeout(10_000);
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], {
        origin: h.spa.url,
      });
      const { credentials } = await registerUser(h.t, uniqueUser('spa2facopy'));
      const tab = await openApp(context, h.spa.url);
      const { page, app } = await enrolThroughPage(tab, credentials);
      await page.fill('#totp-code', await codeToType(app));
      await page.click('#totp-confirm-form [type=submit]');
      await page.waitForSelector('#recovery:not([hidden])');
      const codes = await recoveryCodes(page);
      expect(codes).toHaveLength(10);
      expect(await text(page, '#recovery-copy')).toBe('Copy');
      expect(await text(page, '#recovery-download')).toBe('Download');
      expect(await axeViolations(page)).toEqual([]);

      // Said beside the buttons, in view and focused.
      expect(await resultAfter(page, 'recovery', () => page.click('#recovery-copy'))).toBe(
        'The codes were copied: paste them somewhere safe, such as a password manager.',
      );
      const copied = await page.evaluate(() => navigator.clipboard.readText());
      expect(copied.split('\n').filter((line) => codes.includes(line))).toEqual(codes);
      expect(copied).toContain(`Recovery codes for your account at ${new URL(h.spa.url).host}`);

      const [download, said] = await Promise.all([
        page.waitForEvent('download'),
        resultAfter(page, 'recovery', () => page.click('#recovery-download')),
      ]);
      expect(said).toBe(
        'The codes were downloaded as recovery-codes-localhost.txt: keep the file somewhere safe.',
      );
      expect(download.suggestedFilename()).toBe('recovery-codes-localhost.txt');
      expect(await readFile(await download.path(), 'utf8')).toBe(copied);

      // Saved, the codes and what was said of them leave the page.
      await page.click('#recovery-done');
      expect(await recoveryCodes(page)).toEqual([]);
      expect(await resultOf(page, 'recovery')).toBe('');
      expect(tab.consoleErrors).toEqual([]);
    },
  );

  it('keeps the SDK page’s screenshots of two-step sign-in', () => {
    const mine = ['two-step-enrol', 'two-step-codes', 'second-step'] as const;
    expect(checkScreenshots(mine)).toEqual({ stale: [], missing: [], taken: [...mine] });
  });

  /** A session of the account on another device: the password, then a code. */
  async function signedInElsewhere(
    credentials: { email: string; password: string },
    app: Authenticator,
  ) {
    const step = await h.t
      .http()
      .post('/api/v1/auth/login')
      .send({ email: credentials.email, password: credentials.password })
      .expect(200);
    return h.t
      .http()
      .post('/api/v1/auth/mfa/verify')
      .send({ challenge: step.body.data.challenge as string, code: await codeToType(app) })
      .expect(200);
  }
});
