import { BrowserContext, Page } from 'playwright-core';
import { UserDirectory } from '../../src/users/user-directory.service';
import { Authenticator } from '../support/authenticator';
import { registerAndLogin, uniqueUser } from '../support/auth-helpers';
import {
  AppTab,
  Harness,
  axeViolations,
  codeToType,
  fieldErrorAfter,
  logInThroughPage,
  openApp,
  resultAfter,
  resultOf,
  startHarness,
} from './harness';

/** The shortest the service accepts: a sign-in older than this is no longer recent. */
const STEP_UP_MAX_AGE_S = 10;

/**
 * Issue 24's step-up in the example app, in Chromium: past STEP_UP_MAX_AGE, switching two-step
 * sign-in on, new recovery codes (and switching it off) answer 403 REAUTHENTICATION_REQUIRED;
 * the page asks for the password or a code, authenticates the session again and goes on.
 */
describe('the example app: step-up, and a second factor a role must have', () => {
  let h: Harness;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    h = await startHarness({
      STEP_UP_MAX_AGE: String(STEP_UP_MAX_AGE_S),
      MFA_REQUIRED_ROLES: 'admin',
    });
  });
  afterAll(() => h?.close());
  afterEach(async () => {
    for (const context of contexts.splice(0)) await context.close();
  });

  /** A browser of its own: its own cookies, so its own session. */
  async function browserTab(): Promise<AppTab> {
    const context = await h.browser.newContext({ viewport: { width: 1000, height: 760 } });
    contexts.push(context);
    return openApp(context, h.spa.url);
  }
  const text = async (page: Page, selector: string) => (await page.innerText(selector)).trim();
  const focused = (page: Page) => page.evaluate(() => document.activeElement?.id);
  async function stepUpAsked(page: Page) {
    await page.waitForSelector('#reauth-dialog[open]');
    expect(await text(page, '#reauth-title')).toBe('Confirm it’s you');
  }

  it('asks for the password (or a code), then does what was asked; cancelling changes nothing', async () => {
    // Ann has no authenticator app yet; Bob has one, enrolled before he signs in on the page.
    const ann = await registerAndLogin(h.t, uniqueUser('stepann'));
    const bob = await registerAndLogin(h.t, uniqueUser('stepbob'));
    const bobsApp = await enrolOverApi(bob.access);
    const annTab = await browserTab();
    const bobTab = await browserTab();
    const [annPage, bobPage] = [annTab.page, bobTab.page];
    await logInThroughPage(annPage, ann.credentials);
    await bobPage.fill('#login-email', bob.credentials.email);
    await bobPage.fill('#login-password', bob.credentials.password);
    await bobPage.click('#login-form [type=submit]');
    await bobPage.fill('#mfa-code', await codeToType(bobsApp));
    await bobPage.click('#mfa-form [type=submit]');
    await bobPage.waitForSelector('#totp-on:not([hidden])');

    // Both sign-ins are no longer recent.
    await new Promise((resolve) => setTimeout(resolve, STEP_UP_MAX_AGE_S * 1000 + 1000));

    // Ann cancels first: nothing changes, said in the two-step section, which has the focus.
    await annPage.click('#totp-begin');
    await stepUpAsked(annPage);
    expect(await focused(annPage)).toBe('reauth-password');
    // Without an authenticator app, only the password is offered.
    expect(await annPage.isVisible('#reauth-switch')).toBe(false);
    const cancelled = await resultAfter(annPage, 'two-step', () => annPage.click('#reauth-cancel'));
    expect(cancelled).toBe('Two-step sign-in is still off.');
    expect(await annPage.isVisible('#reauth-dialog')).toBe(false);
    expect(await annPage.isVisible('#totp-enrol')).toBe(false);
    expect(await annPage.isVisible('#totp-begin')).toBe(true);
    expect(await focused(annPage)).toBe('two-step-result');

    // Then a wrong password, said inside the dialog beside its field, and the right one.
    await annPage.click('#totp-begin');
    await stepUpAsked(annPage);
    // The section's last result is not left over next to what happens now.
    expect(await resultOf(annPage, 'two-step')).toBe('');
    const wrong = await fieldErrorAfter(annPage, '#reauth-password', async () => {
      await annPage.fill('#reauth-password', 'not-my-password');
      await annPage.click('#reauth-form [type=submit]');
    });
    expect(wrong).toBe('That is not your current password.');
    // The dialog, its field marked, as a screen reader meets it.
    expect(await axeViolations(annPage)).toEqual([]);
    expect(await resultOf(annPage, 'reauth-form')).toBe('');
    expect(await focused(annPage)).toBe('reauth-password');
    expect(await annPage.isVisible('#reauth-dialog')).toBe(true);
    await annPage.fill('#reauth-password', ann.credentials.password);
    await annPage.click('#reauth-form [type=submit]');
    await annPage.waitForSelector('#totp-enrol:not([hidden])');
    expect(await annPage.isVisible('#reauth-dialog')).toBe(false);
    expect(await text(annPage, '#totp-secret')).toMatch(/^[A-Z2-7 ]{32,}$/);
    expect(await text(annPage, '#status')).toBe(`Signed in as ${ann.credentials.username}`);

    // Bob confirms with a code from his app instead, and gets his new recovery codes.
    await bobPage.click('#recovery-regenerate');
    await stepUpAsked(bobPage);
    expect(await text(bobPage, '#reauth-switch')).toBe('Use a code from your app instead');
    await bobPage.click('#reauth-switch');
    expect(await focused(bobPage)).toBe('reauth-code');
    expect(await bobPage.isVisible('#reauth-password')).toBe(false);
    await bobPage.fill('#reauth-code', await codeToType(bobsApp));
    await bobPage.click('#reauth-form [type=submit]');
    await bobPage.waitForSelector('#recovery:not([hidden])');
    expect(await bobPage.isVisible('#reauth-dialog')).toBe(false);
    expect(await text(bobPage, '#recovery-text')).toBe(
      'You have new recovery codes: the old ones no longer work.',
    );
    expect(await focused(bobPage)).toBe('recovery-title');
    expect(await bobPage.locator('#recovery-list li').count()).toBe(10);
    // Recent again: switching off needs no second confirmation.
    await bobPage.click('#recovery-done');
    await bobPage.click('#totp-disable-switch');
    const off = await resultAfter(bobPage, 'two-step', async () => {
      await bobPage.fill('#totp-disable-password', bob.credentials.password);
      await bobPage.click('#totp-disable-form [type=submit]');
    });
    expect(off).toBe('Two-step sign-in is off. Signing in takes only your password now.');
    expect(await bobPage.isVisible('#reauth-dialog')).toBe(false);

    // The only failed requests are the ones the service answered "confirm it's you", and Ann's
    // wrong password; the sessions went on throughout.
    const api = h.apiUrl;
    expect(annTab.failures).toEqual([
      `403 ${api}/users/me/mfa/totp`,
      `403 ${api}/users/me/mfa/totp`,
      `403 ${api}/auth/reauthenticate`,
    ]);
    expect(bobTab.failures).toEqual([`403 ${api}/users/me/mfa/recovery-codes`]);
    for (const tab of [annTab, bobTab]) {
      expect(tab.consoleErrors).toHaveLength(tab.failures.length);
      for (const error of tab.consoleErrors) expect(error).toMatch(/^Failed to load resource/);
    }
    expect(await text(bobPage, '#status')).toBe(`Signed in as ${bob.credentials.username}`);
  }, 60_000);

  it('tells an administrator who must use two-step sign-in, in plain words, lets them switch it on, then asks for it', async () => {
    const admin = await registerAndLogin(h.t, uniqueUser('stepadmin'));
    await h.t.app.get(UserDirectory).setRole(admin.user.id, 'admin');
    const tab = await browserTab();
    const { page } = tab;
    await logInThroughPage(page, admin.credentials);
    // Said in the sessions card; it came with no action of the administrator's, so the focus
    // stays where the sign-in put it.
    await page.waitForSelector('#sessions-result:not(:empty)');
    expect(await resultOf(page, 'sessions')).toBe(
      'The sessions could not be listed. Your account must use two-step sign-in: switch it on under “Two-step sign-in” first.',
    );
    expect(await page.locator('#session-list li').count()).toBe(0);
    expect(await focused(page)).toBe('account-title');
    await page.waitForSelector('#totp-off:not([hidden])');

    await page.click('#totp-begin');
    await page.waitForSelector('#totp-enrol:not([hidden])');
    const app = new Authenticator((await text(page, '#totp-secret')).replace(/\s/g, ''));
    await page.fill('#totp-code', await codeToType(app));
    await page.click('#totp-confirm-form [type=submit]');
    await page.waitForSelector('#recovery:not([hidden])');

    // Switched on, but this session was signed in with the password alone: the role's rule
    // looks at how it was signed in, and the page asks for the second factor, not the password.
    await page.waitForSelector('#sessions-result:has-text("confirm it’s you")');
    expect(await resultOf(page, 'sessions')).toBe(
      'The sessions could not be listed. Your account must use two-step sign-in: confirm it’s you with your authenticator app or your passkey.',
    );
    await page.click('#recovery-done');
    await page.click('#sessions-step-up');
    await stepUpAsked(page);
    expect(await page.isVisible('#reauth-password')).toBe(false);
    expect(await page.isVisible('#reauth-switch')).toBe(false);
    expect(await focused(page)).toBe('reauth-code');
    await page.fill('#reauth-code', await codeToType(app));
    await page.click('#reauth-form [type=submit]');

    // Everything else opens up: the sessions are listed now.
    await page.waitForSelector('#session-list li >> text=This device');
    // And what the list could not do before is no longer said beside it.
    expect(await resultOf(page, 'sessions')).toBe('');
    expect(await page.isVisible('#sessions-step-up')).toBe(false);
    // The organizations card asked once too, alongside the sessions (in either order).
    expect([...tab.failures].sort()).toEqual([
      `403 ${h.apiUrl}/organizations`,
      `403 ${h.apiUrl}/users/me/sessions`,
      `403 ${h.apiUrl}/users/me/sessions`,
      `403 ${h.apiUrl}/users/me/sessions`,
    ]);
  });

  /** Two-step sign-in switched on over the API, as another device would. */
  async function enrolOverApi(access: string): Promise<Authenticator> {
    const as = (path: string) =>
      h.t.http().post(`/api/v1${path}`).set('Authorization', `Bearer ${access}`);
    const begun = await as('/users/me/mfa/totp').expect(200);
    const app = new Authenticator(begun.body.data.secret as string);
    await as('/users/me/mfa/totp/confirm')
      .send({ code: await codeToType(app) })
      .expect(200);
    return app;
  }
});
