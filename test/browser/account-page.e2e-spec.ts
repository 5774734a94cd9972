import { BrowserContext, Page } from 'playwright-core';
import { PASSWORD, login, registerAndLogin } from '../support/auth-helpers';
import {
  Harness,
  VIEWPORTS,
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
 * The example app's signed-in page (issue 17's profile and sessions page), in Chromium against
 * the real service: profile, sessions, password, email and deletion through the SDK.
 */
describe('the example app’s account page in Chromium', () => {
  let h: Harness;
  let context: BrowserContext;

  beforeAll(async () => {
    // A device elsewhere is a request through a proxy on loopback, naming its own address.
    h = await startHarness({ TRUST_PROXY: 'loopback' });
  });
  afterAll(() => h?.close());
  beforeEach(async () => {
    context = await h.browser.newContext({ viewport: { width: 1000, height: 760 } });
  });
  afterEach(() => context.close());

  const text = async (page: Page, selector: string) => (await page.textContent(selector))?.trim();
  /** The window at one of the two sizes every message is checked at. */
  async function sized(viewport: { width: number; height: number }) {
    await context.close();
    context = await h.browser.newContext({ viewport });
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

    const saved = await resultAfter(page, 'profile-form', async () => {
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

    // A refused field is said beside it, in the app's words (not the validator's), and only there.
    const refused = await fieldErrorAfter(page, '#profile-picture', async () => {
      await page.fill('#profile-picture', 'http://not-https.example.com/a.png');
      await page.click('#profile-form [type=submit]');
    });
    expect(refused).toBe('Enter an https:// address of a picture, or leave it empty.');
    expect(await resultOf(page, 'profile-form')).toBe('');

    const taken = await fieldErrorAfter(page, '#profile-username', async () => {
      await page.fill('#profile-picture', '');
      await page.fill('#profile-username', other.credentials.username);
      await page.click('#profile-form [type=submit]');
    });
    expect(taken).toBe('This username is taken: choose another one.');
    expect(await resultOf(page, 'profile-form')).toBe('');
    // The picture's mistake was corrected: its words are gone.
    expect(await page.isVisible('#profile-picture-error')).toBe(false);
    expect(await page.getAttribute('#profile-picture', 'aria-invalid')).toBeNull();
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

    const ended = await resultAfter(page, 'sessions', () =>
      page.locator('#session-list li button').first().click(),
    );
    expect(ended).toBe('That device was signed out.');
    await page.waitForFunction(() => document.querySelectorAll('#session-list li').length === 3);

    const others = await resultAfter(page, 'sessions', () => page.click('#end-others'));
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
    // Said beside the field it is about, not at the top of the page.
    const wrong = await fieldErrorAfter(page, '#password-currentPassword', async () => {
      await page.fill('#password-currentPassword', 'not-my-password');
      await page.fill('#password-newPassword', 'a-fresh-password-1');
      await page.click('#password-form [type=submit]');
    });
    expect(wrong).toBe('That is not your current password.');
    expect(await resultOf(page, 'password-form')).toBe('');

    const changed = await resultAfter(page, 'password-form', async () => {
      await page.fill('#password-currentPassword', PASSWORD);
      await page.fill('#password-newPassword', 'a-fresh-password-1');
      await page.click('#password-form [type=submit]');
    });
    expect(changed).toBe('Your password was changed. Every other device was signed out.');
    expect(await page.inputValue('#password-currentPassword')).toBe('');
    expect(await page.isVisible('#password-currentPassword-error')).toBe(false);
    await page.click('#call-protected');
    await page.waitForSelector('#protected-result:not(:empty)');
    expect(await page.textContent('#protected-result')).toMatch(/^200 /);
    await login(h.t, { ...user.credentials, password: 'a-fresh-password-1' });
  });

  it('changes the email through the link mailed to the new address', async () => {
    const { page } = await signedIn();
    const newEmail = `moved${Date.now()}@example.com`;
    const sent = await resultAfter(page, 'email-form', async () => {
      await page.fill('#email-newEmail', newEmail);
      await page.fill('#email-password', PASSWORD);
      await page.click('#email-form [type=submit]');
    });
    expect(sent).toBe(`We sent a link to ${newEmail}. Your address changes once you open it.`);
    await waitFor(() => h.sink.to(newEmail).length > 0);
    const link = h.sink.to(newEmail)[0].link;
    expect(new URL(link).pathname).toBe('/confirm-email');

    await page.goto(link);
    await page.waitForSelector('body[data-ready="true"]');
    // The account card says so, in view and focused.
    expect(await resultOf(page, 'account-card')).toBe(
      `Your email address is now ${newEmail}. Your old address was told, with a link that undoes the change.`,
    );
    expect(await placeOf(page, '#account-card-result')).toMatchObject({
      inView: true,
      focused: true,
    });
    expect(new URL(page.url()).search).toBe('');
    expect(await page.textContent('#user')).toContain(newEmail);

    // The same link again: used, and the address shown is the new one.
    await page.goto(link);
    await page.waitForSelector('body[data-ready="true"]');
    expect(await resultOf(page, 'account-card')).toBe(
      'This confirmation link was already used, or a later change to your account cancelled it.',
    );
    expect(await page.textContent('#user')).toContain(newEmail);
  });

  it('deletes the account with the current password, and every tab shows it', async () => {
    const { page, user } = await signedIn();
    const second = await openApp(context, h.spa.url);

    // Signed out, the login says what happened.
    const said = await resultAfter(page, 'login-form', async () => {
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

  it('offers an unverified user a new verification email, and hides the offer once verified', async () => {
    const { page, user } = await signedIn();
    const email = user.credentials.email;
    expect(await page.isVisible('#unverified')).toBe(true);
    expect(await text(page, '#verify-resend')).toBe('Send the verification email again');
    expect(await page.textContent('#user')).toContain('Email verifiednot yet');
    const before = h.sink.to(email).length;

    const sent = await resultAfter(page, 'account-card', () => page.click('#verify-resend'));
    expect(sent).toBe(`We sent a new verification link to ${email}.`);
    await waitFor(() => h.sink.to(email).length === before + 1);
    const link = h.sink.to(email)[before].link;
    expect(new URL(link).origin).toBe(h.spa.url);
    expect(new URL(link).pathname).toBe('/verify-email');

    // Its link verifies the address: the account card says so, and the offer is gone.
    await page.goto(link);
    await page.waitForSelector('body[data-ready="true"]');
    expect(await resultOf(page, 'account-card')).toBe(`Your email ${email} is verified.`);
    expect(await page.isVisible('#unverified')).toBe(false);
    expect(await page.textContent('#user')).toContain('Email verifiedyes');
    // And stays gone for a verified user.
    await page.reload();
    await page.waitForSelector('#signed-in:not([hidden])');
    expect(await page.isVisible('#unverified')).toBe(false);
  });

  it('keeps the sessions list live: a sign-in elsewhere shows up without a reload', async () => {
    const { page, user } = await signedIn();
    // The API's login and the page's.
    await page.waitForFunction(() => document.querySelectorAll('#session-list li').length === 2);
    await page.evaluate(() => Object.assign(window, { notReloaded: true }));

    await login(h.t, user.credentials);
    // The person comes back to the tab.
    await page.evaluate(() => document.dispatchEvent(new Event('visibilitychange')));
    await page.waitForFunction(() => document.querySelectorAll('#session-list li').length === 3);
    expect(await page.evaluate(() => 'notReloaded' in window)).toBe(true);
    expect(await page.locator('#session-list li', { hasText: 'This device' }).count()).toBe(1);
    // Nothing was said, and the focus stayed where it was.
    expect(await resultOf(page, 'sessions')).toBe('');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('account-title');
  });

  it('reads the sessions list again every 30 seconds while the page is in view', async () => {
    // The page's clock, moved on by hand: no test waits half a minute.
    await context.clock.install();
    const { page, user } = await signedIn();
    await page.waitForFunction(() => document.querySelectorAll('#session-list li').length === 2);
    // Stopped just after the list is read: the seconds this test spends from here do not count.
    // A little ahead of the page's now, which runs on while pauseAt travels to the page (a
    // loaded machine took long enough for "now" to be in the past when it arrived).
    await page.clock.pauseAt(await page.evaluate(() => Date.now() + 2_000));
    const reads: string[] = [];
    page.on('request', (request) => {
      if (request.url().endsWith('/users/me/sessions')) reads.push(request.url());
    });

    await login(h.t, user.credentials);
    // 27 s and a little after the read: not yet.
    await page.clock.fastForward(25_000);
    // Real time for a read to start, had one been due.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(reads).toEqual([]);
    expect(await page.locator('#session-list li').count()).toBe(2);

    await page.clock.fastForward(6_000);
    await page.waitForFunction(() => document.querySelectorAll('#session-list li').length === 3);
    expect(reads).toHaveLength(1);
    expect(await resultOf(page, 'sessions')).toBe('');
  });

  it.each(Object.entries(VIEWPORTS))(
    'lists each session on its lines, "This device" on one, a loopback address as "this computer", on a %s',
    async (_size, viewport) => {
      await sized(viewport);
      const { page, user } = await signedIn();
      // A phone elsewhere, through the proxy in front of the service.
      await h.t
        .http()
        .post('/api/v1/auth/login')
        .set('X-Forwarded-For', '203.0.113.7')
        .send({ email: user.credentials.email, password: user.credentials.password })
        .expect(200);
      await page.reload();
      await page.waitForSelector('body[data-ready="true"]');
      await page.waitForFunction(() => document.querySelectorAll('#session-list li').length === 3);

      const mine = page.locator('#session-list li', { hasText: 'This device' });
      expect(await mine.locator('.hint').first().innerText()).toMatch(
        /^this computer · signed in /,
      );
      const mark = await mine.locator('.session-current').evaluate((element) => ({
        text: element.textContent,
        lines: Math.round(
          element.getBoundingClientRect().height / parseFloat(getComputedStyle(element).lineHeight),
        ),
      }));
      expect(mark).toEqual({ text: 'This device', lines: 1 });
      const listed = await page.innerText('#session-list');
      expect(listed).toContain('203.0.113.7 · signed in ');
      expect(listed).not.toMatch(/127\.0\.0\.1|::1|::ffff/);
      // The buttons of the other sessions name their places the same way.
      const labels = await page
        .locator('#session-list li button')
        .evaluateAll((buttons) => buttons.map((b) => b.getAttribute('aria-label') ?? ''));
      expect(labels.map((label) => /\(([^)]*)\)$/.exec(label)?.[1]).sort()).toEqual([
        '203.0.113.7',
        'this computer',
      ]);
    },
  );

  it.each(Object.entries(VIEWPORTS))(
    'says that the new email is the account’s own address already, beside its field, on a %s',
    async (_size, viewport) => {
      await sized(viewport);
      const { page, user } = await signedIn();
      const same = await fieldErrorAfter(page, '#email-newEmail', async () => {
        await page.fill('#email-newEmail', user.credentials.email);
        await page.fill('#email-password', PASSWORD);
        await page.click('#email-form [type=submit]');
      });
      expect(same).toBe('This is already your email address: enter the new one.');
      expect(await resultOf(page, 'email-form')).toBe('');
      // A malformed address is still said as one.
      const malformed = await fieldErrorAfter(page, '#email-newEmail', async () => {
        await page.fill('#email-newEmail', 'not-an-address');
        await page.click('#email-form [type=submit]');
      });
      expect(malformed).toBe('Enter the new email address, like name@example.com.');
    },
  );

  it.each(Object.entries(VIEWPORTS))(
    'clears a result once another action starts or the view changes, on a %s',
    async (_size, viewport) => {
      await sized(viewport);
      const { page, user } = await signedIn();
      expect(
        await resultAfter(page, 'profile-form', () => page.click('#profile-form [type=submit]')),
      ).toBe('Your profile was saved.');
      // Another card's action: the profile's result was about the profile's save, not this.
      expect(
        await resultAfter(page, 'password-form', async () => {
          await page.fill('#password-currentPassword', PASSWORD);
          await page.fill('#password-newPassword', 'a-fresh-password-2');
          await page.click('#password-form [type=submit]');
        }),
      ).toBe('Your password was changed. Every other device was signed out.');
      expect(await resultOf(page, 'profile-form')).toBe('');
      await page.click('#call-protected');
      await page.waitForSelector('#protected-result:not(:empty)');
      expect(await resultOf(page, 'password-form')).toBe('');

      // Signed out, a failed login's words go once another task is opened.
      await page.click('#logout');
      await page.waitForSelector('#signed-out:not([hidden])');
      expect(
        await resultAfter(page, 'login-form', async () => {
          await page.fill('#login-email', user.credentials.email);
          await page.fill('#login-password', 'not-the-password');
          await page.click('#login-form [type=submit]');
        }),
      ).toBe('Wrong email or password.');
      await page.click('a[href="#forgot-password"]');
      await page.waitForSelector('#task-forgot-password:not([hidden])');
      await page.click('#task-forgot-password a[href="#log-in"]');
      await page.waitForSelector('#task-log-in:not([hidden])');
      expect(await resultOf(page, 'login-form')).toBe('');
    },
  );

  it('keeps the SDK page’s screenshot of this page', () => {
    expect(checkScreenshots(['account'])).toEqual({ stale: [], missing: [], taken: ['account'] });
  });

  async function cookieHeader(): Promise<string> {
    const cookies = await context.cookies(h.apiUrl);
    return cookies.map((c) => `${c.name}=${c.value}`).join('; ');
  }
});
