import { BrowserContext, Page } from 'playwright-core';
import { Authenticator } from '../support/authenticator';
import { registerAndLogin, registerUser, uniqueUser } from '../support/auth-helpers';
import { ReceivedMail } from '../support/mailbox';
import {
  Harness,
  VIEWPORTS,
  axeViolations,
  codeToType,
  fieldErrorAfter,
  openApp,
  placeOf,
  resultAfter,
  resultOf,
  startHarness,
  waitFor,
} from './harness';

const SUBJECT = 'Your sign-in code for Auth Service';

/**
 * Issue 26, item 4: signing in with a code by email in the example app, in Chromium against the
 * real service, the mail read from a real SMTP server as a person reads it: the six digits typed
 * into the page, or the link opened.
 */
describe('sign-in with a code by email in the example app', () => {
  let h: Harness;
  let context: BrowserContext;

  beforeAll(async () => {
    // Not the default ten minutes: the page must say the lifetime the service answered. The
    // mails per address capped as by default (the suites' service sends without a cap).
    h = await startHarness({
      EMAIL_CODE_TTL: '900',
      MAIL_RECIPIENT_LIMIT: '3',
      MAIL_RECIPIENT_WINDOW: '900',
    });
  });
  afterAll(() => h?.close());
  beforeEach(async () => {
    context = await h.browser.newContext({ viewport: { width: 1000, height: 760 } });
  });
  afterEach(() => context.close());

  const text = async (page: Page, selector: string) => (await page.innerText(selector)).trim();
  const focused = (page: Page) => page.evaluate(() => document.activeElement?.id);
  const sessionCookies = async () =>
    (await context.cookies(`${h.apiUrl}/auth/refresh`)).filter((c) => c.name.endsWith('_token'))
      .length;

  /**
   * Opens the email-code task as a person does from the login: the "Email me a sign-in code"
   * link of the "Other ways to sign in" card.
   */
  async function openEmailCodeTask(page: Page): Promise<void> {
    await page.click('#other-ways a[href="#email-code"]');
    await page.waitForSelector('#task-email-code:not([hidden])');
    expect(await page.isHidden('#task-log-in')).toBe(true);
    expect(new URL(page.url()).hash).toBe('#email-code');
  }

  /** Asks for a code through the page and waits for its mail. */
  async function askThroughPage(page: Page, email: string): Promise<ReceivedMail> {
    const before = h.sink.to(email).length;
    if (await page.isHidden('#task-email-code')) await openEmailCodeTask(page);
    await page.fill('#code-request-email', email);
    await page.click('#code-request-form [type=submit]');
    await page.waitForSelector('#code-verify-form:not([hidden])');
    await waitFor(() => h.sink.to(email).length > before);
    const mail = h.sink.to(email).at(-1)!;
    expect(mail.subject).toBe(SUBJECT);
    return mail;
  }
  const codeOf = (mail: ReceivedMail) => /\n(\d{6})\n/.exec(mail.text)?.[1] ?? '';

  it('signs in with the code typed into the page, verifying the email, with no console error and no failed request', async () => {
    const { credentials } = await registerUser(h.t, uniqueUser('spacode'));
    const tab = await openApp(context, h.spa.url);
    const { page } = tab;

    const mail = await askThroughPage(page, credentials.email);
    expect(await focused(page)).toBe('code-verify-code');
    expect(await text(page, '#code-verify-hint')).toBe(
      `We sent a code to ${credentials.email}. The code and the link in the email work once, for 15 minutes.`,
    );
    expect(await page.isVisible('#code-request-form')).toBe(false);
    // The link leads back to this app.
    expect(mail.link.startsWith(`${h.spa.url}/sign-in?token=`)).toBe(true);

    // As the mail shows it, with a space a person might type.
    await page.fill('#code-verify-code', codeOf(mail).replace(/^(\d{3})/, '$1 '));
    await page.click('#code-verify-form [type=submit]');
    await page.waitForSelector('#signed-in:not([hidden])');
    expect(await text(page, '#status')).toBe(`Signed in as ${credentials.username}`);
    expect(await text(page, '#user')).toContain('Email verified\nyes');
    expect(await sessionCookies()).toBe(2);

    // Signed out again, the page shows the login, and its link offers the address form afresh.
    await page.click('#logout');
    await page.waitForSelector('#signed-out:not([hidden])');
    expect(await page.isVisible('#task-log-in')).toBe(true);
    await openEmailCodeTask(page);
    expect(await page.isVisible('#code-request-form')).toBe(true);
    expect(await page.isVisible('#code-verify-form')).toBe(false);

    expect(tab.consoleErrors).toEqual([]);
    expect(tab.failures).toEqual([]);
  });

  it('signs in from the link in the mail, once, and takes the token out of the address bar', async () => {
    const { credentials } = await registerUser(h.t, uniqueUser('spalink'));
    const asker = await openApp(context, h.spa.url);
    const mail = await askThroughPage(asker.page, credentials.email);
    const link = new URL(mail.link);

    // The link opened in another browser (a phone's mail app, say): signed in there.
    const other = await h.browser.newContext();
    try {
      const tab = await openApp(other, h.spa.url, `${link.pathname}${link.search}`);
      await tab.page.waitForSelector('#signed-in:not([hidden])');
      expect(await text(tab.page, '#status')).toBe(`Signed in as ${credentials.username}`);
      expect(tab.page.url()).toBe(`${h.spa.url}/`);
      expect(tab.consoleErrors).toEqual([]);
      expect(tab.failures).toEqual([]);
    } finally {
      await other.close();
    }

    // Opened again: used up, said in plain words, and nobody is signed in.
    // The page opens on the form that asks for a new code, the words beside it, in view and
    // focused, and the token gone from the address bar there too.
    const again = await openApp(context, h.spa.url, `${link.pathname}${link.search}`);
    await again.page.waitForSelector('#signed-out:not([hidden])');
    expect(await again.page.isVisible('#task-email-code #code-request-form')).toBe(true);
    expect(await again.page.isHidden('#task-log-in')).toBe(true);
    expect(await resultOf(again.page, 'code-request-form')).toBe(
      'This sign-in link has expired or was already used. Ask for a new code below.',
    );
    const place = await placeOf(again.page, '#code-request-form-result');
    expect({ inView: place.inView, focused: place.focused }).toEqual({
      inView: true,
      focused: true,
    });
    expect(again.page.url()).toBe(`${h.spa.url}/#email-code`);
    expect(await sessionCookies()).toBe(0);
    // And the code of the same mail died with the link.
    await h.t
      .http()
      .post('/api/v1/auth/email-code/verify')
      .send({ email: credentials.email, code: codeOf(mail) })
      .expect(401);
  });

  it.each(Object.entries(VIEWPORTS))(
    'sends a new code on request, and says how long to wait once the address has had its mails, on a %s',
    async (_size, viewport) => {
      await context.close();
      context = await h.browser.newContext({ viewport });
      const { credentials } = await registerUser(h.t, uniqueUser('spaagain'));
      const email = credentials.email;
      const codes = () => h.sink.to(email).filter((mail) => mail.subject === SUBJECT);
      const { page } = await openApp(context, h.spa.url, '/#email-code');
      const first = await askThroughPage(page, email);
      expect(await axeViolations(page)).toEqual([]);

      // A new code, in a new mail: said beside the form, the field emptied for it.
      await page.fill('#code-verify-code', '123');
      const again = await resultAfter(page, 'code-verify-form', () =>
        page.click('#code-verify-resend'),
      );
      expect(again).toBe(`We sent a new code to ${email}: the one before no longer works.`);
      await waitFor(() => codes().length === 2);
      const second = codes()[1];
      expect(codeOf(second)).toMatch(/^\d{6}$/);
      expect(await page.inputValue('#code-verify-code')).toBe('');
      expect(await text(page, '#code-verify-hint')).toBe(
        `We sent a code to ${email}. The code and the link in the email work once, for 15 minutes.`,
      );

      // The address has had its mails for now (MAIL_RECIPIENT_LIMIT, 3 a quarter of an hour):
      // the service's 429 and its wait, in the app's words; no mail.
      expect(
        await resultAfter(page, 'code-verify-form', () => page.click('#code-verify-resend')),
      ).toBe(`We sent a new code to ${email}: the one before no longer works.`);
      await waitFor(() => codes().length === 3);
      const refused = await resultAfter(page, 'code-verify-form', () =>
        page.click('#code-verify-resend'),
      );
      expect(refused).toBe('No new code was sent. Too many attempts. Try again in 15 minutes.');
      expect(codes()).toHaveLength(3);
      expect(await axeViolations(page)).toEqual([]);

      // The last code mailed signs in; the first one no longer does.
      const last = codeOf(codes()[2]);
      if (codeOf(first) !== last) {
        await page.fill('#code-verify-code', codeOf(first));
        expect(
          await resultAfter(page, 'code-verify-form', () =>
            page.click('#code-verify-form [type=submit]'),
          ),
        ).toBe(
          'That code is wrong, expired or already used. Check the email, or ask for a new code.',
        );
      }
      await page.fill('#code-verify-code', last);
      await page.click('#code-verify-form [type=submit]');
      await page.waitForSelector('#signed-in:not([hidden])');
      expect(await text(page, '#status')).toBe(`Signed in as ${credentials.username}`);
    },
  );

  it('says a wrong code in plain words, and goes on to the second step of an account that has one', async () => {
    const session = await registerAndLogin(h.t, uniqueUser('spacode2fa'));
    const bearer = { Authorization: `Bearer ${session.access}` };
    const begun = await h.t.http().post('/api/v1/users/me/mfa/totp').set(bearer).expect(200);
    const app = new Authenticator(begun.body.data.secret as string);
    await h.t
      .http()
      .post('/api/v1/users/me/mfa/totp/confirm')
      .set(bearer)
      .send({ code: await app.code() })
      .expect(200);

    // The task's own address (a bookmark, a shared link) opens it directly.
    const { page } = await openApp(context, h.spa.url, '/#email-code');
    expect(await page.isVisible('#task-email-code #code-request-form')).toBe(true);
    expect(await page.isHidden('#task-log-in')).toBe(true);
    const mail = await askThroughPage(page, session.credentials.email);
    const code = codeOf(mail);
    await page.fill('#code-verify-code', code === '000000' ? '000001' : '000000');
    expect(
      await resultAfter(page, 'code-verify-form', () =>
        page.click('#code-verify-form [type=submit]'),
      ),
    ).toBe('That code is wrong, expired or already used. Check the email, or ask for a new code.');

    await page.fill('#code-verify-code', code);
    await page.click('#code-verify-form [type=submit]');
    await page.waitForSelector('#second-step:not([hidden])');
    expect(await text(page, '#mfa-hint')).toBe(
      'Your code was right. Enter the 6-digit code your authenticator app shows for this account.',
    );
    expect(await sessionCookies()).toBe(0);
    // A wrong code at this step: said beside its field, the field ready for the next one.
    const right = await codeToType(app);
    await page.fill('#mfa-code', right === '000000' ? '000001' : '000000');
    expect(
      await fieldErrorAfter(page, '#mfa-code', () => page.click('#mfa-form [type=submit]')),
    ).toBe('That code is wrong or was already used. Enter the one your app shows now.');
    expect(await sessionCookies()).toBe(0);
    await page.fill('#mfa-code', await codeToType(app));
    await page.click('#mfa-form [type=submit]');
    await page.waitForSelector('#signed-in:not([hidden])');
    expect(await text(page, '#status')).toBe(`Signed in as ${session.credentials.username}`);
  });
});

describe('the example app on a service with EMAIL_CODE_LOGIN=false', () => {
  let h: Harness;
  let context: BrowserContext;

  beforeAll(async () => {
    h = await startHarness({ EMAIL_CODE_LOGIN: 'false' });
  });
  afterAll(() => h?.close());
  beforeEach(async () => {
    context = await h.browser.newContext();
  });
  afterEach(() => context.close());

  it('offers no code by email, even to an address that names its task', async () => {
    const { page, failures, consoleErrors } = await openApp(context, h.spa.url, '/#email-code');
    // The login instead: the task is not one this service offers.
    await page.waitForSelector('#task-log-in:not([hidden])');
    expect(await page.isHidden('#task-email-code')).toBe(true);
    expect(await page.locator('a[href="#email-code"]:visible').count()).toBe(0);
    expect(await page.isVisible('#other-ways')).toBe(true);
    expect(failures).toEqual([]);
    expect(consoleErrors).toEqual([]);
  });
});
