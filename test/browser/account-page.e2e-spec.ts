import { BrowserContext, Page } from 'playwright-core';
import { PASSWORD, login, registerAndLogin } from '../support/auth-helpers';
import { Harness, logInThroughPage, openApp, startHarness, waitFor } from './harness';
import { checkScreenshots, screenshot } from './screenshots';

/**
 * The example app's signed-in page (issue 17's profile and sessions page), in Chromium against
 * the real service: profile, sessions, password, email and deletion through the SDK.
 */
describe('the example app’s account page in Chromium', () => {
  let h: Harness;
  let context: BrowserContext;

  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h?.close());
  beforeEach(async () => {
    context = await h.browser.newContext({ viewport: { width: 1000, height: 760 } });
  });
  afterEach(() => context.close());

  const text = async (page: Page, selector: string) => (await page.textContent(selector))?.trim();
  async function noticeAfter(page: Page, action: () => Promise<void>): Promise<string> {
    await page.evaluate(() => {
      document.querySelector('#notice')?.setAttribute('hidden', '');
    });
    await action();
    await page.waitForSelector('#notice:not([hidden])');
    return (await text(page, '#notice')) ?? '';
  }
  async function signedIn() {
    const user = await registerAndLogin(h.t);
    const tab = await openApp(context, h.spa.url);
    await logInThroughPage(tab.page, user.credentials);
    await tab.page.waitForSelector('#session-list li');
    return { ...tab, user };
  }

  it('edits the profile, and shows a taken username beside its field', async () => {
    const { page } = await signedIn();
    const other = await registerAndLogin(h.t);
    expect(await page.inputValue('#profile-username')).not.toBe('');

    const saved = await noticeAfter(page, async () => {
      await page.fill('#profile-name', 'Ann Example');
      await page.fill('#profile-picture', 'https://cdn.example.com/ann.png');
      await page.click('#profile-form [type=submit]');
    });
    expect(saved).toBe('Your profile was saved.');
    expect(await page.textContent('#user')).toContain('NameAnn Example');
    const stored = await h.t
      .http()
      .get(`/api/v1/auth/session`)
      .set('Cookie', await cookieHeader());
    expect(stored.body.data.user).toMatchObject({
      name: 'Ann Example',
      picture: 'https://cdn.example.com/ann.png',
    });

    const refused = await noticeAfter(page, async () => {
      await page.fill('#profile-picture', 'http://not-https.example.com/a.png');
      await page.click('#profile-form [type=submit]');
    });
    expect(refused).toBe('Please correct the fields marked below.');
    expect(await page.getAttribute('#profile-picture', 'aria-invalid')).toBe('true');

    const taken = await noticeAfter(page, async () => {
      await page.fill('#profile-picture', '');
      await page.fill('#profile-username', other.credentials.username);
      await page.click('#profile-form [type=submit]');
    });
    expect(taken).toMatch(/taken/);
  });

  it('lists the sessions, ends another device’s, then all the others', async () => {
    // The account's first login (the API's), the page's, and two more devices.
    const { page, user } = await signedIn();
    const phone = await login(h.t, user.credentials);
    await login(h.t, user.credentials);
    await page.reload();
    await page.waitForSelector('body[data-ready="true"]');
    await page.waitForFunction(() => document.querySelectorAll('#session-list li').length === 4);
    expect(await page.locator('#session-list li', { hasText: 'This device' }).count()).toBe(1);
    expect(await page.textContent('#session-list')).toContain('Chrome on Linux');
    await screenshot(page, 'account');

    const ended = await noticeAfter(page, () =>
      page.locator('#session-list li button').first().click(),
    );
    expect(ended).toBe('That device was signed out.');
    await page.waitForFunction(() => document.querySelectorAll('#session-list li').length === 3);

    const others = await noticeAfter(page, () => page.click('#end-others'));
    expect(others).toBe('Signed out of 2 other sessions.');
    await page.waitForFunction(() => document.querySelectorAll('#session-list li').length === 1);
    const refusedPhone = await h.t
      .http()
      .get('/api/v1/auth/verify-token')
      .set('Authorization', `Bearer ${phone.access}`);
    expect(refusedPhone.status).toBe(401);
    expect(await text(page, '#status')).toBe(`Signed in as ${user.credentials.username}`);
  });

  it('changes the password and stays signed in; a wrong current password says so', async () => {
    const { page, user } = await signedIn();
    const wrong = await noticeAfter(page, async () => {
      await page.fill('#password-currentPassword', 'not-my-password');
      await page.fill('#password-newPassword', 'a-fresh-password-1');
      await page.click('#password-form [type=submit]');
    });
    expect(wrong).toBe('The current password is wrong.');

    const changed = await noticeAfter(page, async () => {
      await page.fill('#password-currentPassword', PASSWORD);
      await page.fill('#password-newPassword', 'a-fresh-password-1');
      await page.click('#password-form [type=submit]');
    });
    expect(changed).toBe('Your password was changed. Every other device was signed out.');
    expect(await page.inputValue('#password-currentPassword')).toBe('');
    await page.click('#call-protected');
    await page.waitForSelector('#protected-result:not(:empty)');
    expect(await page.textContent('#protected-result')).toMatch(/^200 /);
    await login(h.t, { ...user.credentials, password: 'a-fresh-password-1' });
  });

  it('changes the email through the link mailed to the new address', async () => {
    const { page } = await signedIn();
    const newEmail = `moved${Date.now()}@example.com`;
    const sent = await noticeAfter(page, async () => {
      await page.fill('#email-newEmail', newEmail);
      await page.fill('#email-password', PASSWORD);
      await page.click('#email-form [type=submit]');
    });
    expect(sent).not.toBe('');
    await waitFor(() => h.sink.to(newEmail).length > 0);
    const link = h.sink.to(newEmail)[0].link;
    expect(new URL(link).pathname).toBe('/confirm-email');

    await page.goto(link);
    await page.waitForSelector('body[data-ready="true"]');
    expect(await text(page, '#notice')).toBe(`Your email address is now ${newEmail}.`);
    expect(new URL(page.url()).search).toBe('');
    expect(await page.textContent('#user')).toContain(newEmail);
  });

  it('deletes the account with the current password, and every tab shows it', async () => {
    const { page, user } = await signedIn();
    const second = await openApp(context, h.spa.url);

    const said = await noticeAfter(page, async () => {
      await page.fill('#delete-password', PASSWORD);
      await page.click('#delete-form [type=submit]');
    });

    expect(said).toBe('Your account was deleted.');
    expect(await text(page, '#status')).toBe('Signed out');
    await second.page.waitForSelector('#signed-out:not([hidden])');
    const { email, password } = user.credentials;
    const relogin = await h.t.http().post('/api/v1/auth/login').send({ email, password });
    expect(relogin.status).toBe(401);
  });

  it('keeps the README’s screenshot of this page', () => {
    expect(checkScreenshots(['account'])).toEqual({ stale: [], missing: [], taken: ['account'] });
  });

  async function cookieHeader(): Promise<string> {
    const cookies = await context.cookies(h.apiUrl);
    return cookies.map((c) => `${c.name}=${c.value}`).join('; ');
  }
});
