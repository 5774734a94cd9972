import { BrowserContext, Page, Request } from 'playwright-core';
import { PASSWORD, login, registerAndLogin, uniqueUser } from '../support/auth-helpers';
import { Harness, startHarness, waitFor } from './harness';

/**
 * The pages the service serves itself when an emailed link carries no `applicationUrl`, opened
 * from the mail in Chromium as the person would: the page posts from the service's own origin
 * (`PUBLIC_URL`), which is not one of the app origins in CORS_ORIGINS.
 */
describe('the emailed link pages in Chromium', () => {
  let h: Harness;
  let context: BrowserContext;

  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h?.close());
  beforeEach(async () => {
    context = await h.browser.newContext();
  });
  afterEach(() => context.close());

  /** Opens the link of the newest mail to `address` and presses the page's button. */
  async function followLink(address: string, fill?: (page: Page) => Promise<void>) {
    await waitFor(() => h.sink.to(address).length > 0);
    const mail = h.sink.to(address).at(-1)!;
    expect(new URL(mail.link).origin).toBe(new URL(h.apiUrl).origin);
    const page = await context.newPage();
    const posts: Request[] = [];
    page.on('request', (request) => {
      if (request.method() === 'POST') posts.push(request);
    });
    await page.goto(mail.link);
    await fill?.(page);
    await page.click('#form button');
    await page.waitForFunction(() => document.querySelector('#result')?.textContent !== '');
    expect(posts).toHaveLength(1);
    // What the browser really sent (`headers()` leaves out what the network stack adds).
    expect((await posts[0].allHeaders()).origin).toBe(new URL(h.apiUrl).origin);
    return {
      text: await page.textContent('#result'),
      failed: await page.$eval('#result', (node) => node.className === 'error'),
    };
  }

  it('verifies an email from the page of the link registration mailed', async () => {
    const credentials = uniqueUser('linkverify');
    await h.t.http().post('/api/v1/auth/register').send(credentials).expect(201);

    expect(await followLink(credentials.email)).toEqual({
      text: 'Email verified',
      failed: false,
    });
    const verified = await login(h.t, credentials);
    const me = await h.t
      .http()
      .get('/api/v1/users/me')
      .set('Authorization', `Bearer ${verified.access}`)
      .expect(200);
    expect(me.body.data.user.email_verified).toBe(true);
  });

  it('sets a new password from the page of the reset link', async () => {
    const { credentials } = await registerAndLogin(h.t, uniqueUser('linkreset'));
    h.sink.received.length = 0;
    await h.t
      .http()
      .post('/api/v1/auth/forgot-password')
      .send({ email: credentials.email })
      .expect(200);

    const result = await followLink(credentials.email, (page) =>
      page.fill('#newPassword', 'a brand new secret'),
    );
    expect(result.failed).toBe(false);
    await login(h.t, { email: credentials.email, password: 'a brand new secret' });
  });

  it('moves the account to its new address from the page of the confirmation link', async () => {
    const session = await registerAndLogin(h.t, uniqueUser('linkmove'));
    const newEmail = `moved-${session.credentials.email}`;
    await h.t
      .http()
      .post('/api/v1/users/me/email')
      .set('Authorization', `Bearer ${session.access}`)
      .send({ password: PASSWORD, newEmail })
      .expect(200);

    expect((await followLink(newEmail)).failed).toBe(false);
    await login(h.t, { email: newEmail, password: PASSWORD });
  });

  it('moves the account back and signs everyone out from the undo link the old address got', async () => {
    const session = await registerAndLogin(h.t, uniqueUser('linkundo'));
    const oldEmail = session.credentials.email;
    const newEmail = `taken-${oldEmail}`;
    await h.t
      .http()
      .post('/api/v1/users/me/email')
      .set('Authorization', `Bearer ${session.access}`)
      .send({ password: PASSWORD, newEmail })
      .expect(200);
    await h.t
      .http()
      .post('/api/v1/users/me/email/confirm')
      .send({ token: h.sink.to(newEmail).at(-1)!.token })
      .expect(200);

    expect(await followLink(oldEmail)).toEqual({
      text:
        'The account is back at this address and every session of it has ended. Choose a new ' +
        'password now with "Forgot password" on the sign-in page.',
      failed: false,
    });
    await h.t
      .http()
      .get('/api/v1/users/me')
      .set('Authorization', `Bearer ${session.access}`)
      .expect(401);
    await login(h.t, { email: oldEmail, password: PASSWORD });
  });

  it('signs this browser in to the service from the page of the sign-in link, once', async () => {
    const { credentials } = await registerAndLogin(h.t, uniqueUser('linkcode'));
    await h.t.http().post('/api/v1/auth/email-code').send({ email: credentials.email }).expect(200);

    expect(await followLink(credentials.email)).toEqual({
      text: 'Login successful',
      failed: false,
    });
    // The session's cookies, set for the service's own origin.
    const cookies = await context.cookies(`${h.apiUrl}/auth/refresh`);
    expect(cookies.map((cookie) => cookie.name).sort()).toEqual(['access_token', 'refresh_token']);
    // The link is used up: pressing its button again is refused.
    expect(await followLink(credentials.email)).toEqual({
      text: 'The code is wrong, expired or already used',
      failed: true,
    });
  });
});
