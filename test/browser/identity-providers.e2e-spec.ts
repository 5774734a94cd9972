import { BrowserContext, Page } from 'playwright-core';
import * as jwt from 'jsonwebtoken';
import { randomUUID } from 'node:crypto';
import { signAccess } from '../support/access-tokens';
import { IdentityProviderProcess, startIdentityProvider } from '../support/identity-provider';
import {
  Harness,
  VIEWPORTS,
  axeViolations,
  logInThroughPage,
  openApp,
  placeOf,
  resultAfter,
  resultOf,
  startHarness,
} from './harness';
import { screenshot } from './screenshots';

/**
 * What the account page says when a link comes back refused (`?error=ACCOUNT_EXISTS`: that
 * identity is another account's, or this account has one of the provider already). Not the
 * signed-out words ("Sign in to it, then link the provider from your account page"): the person
 * is signed in, on that page.
 */
const LINK_REFUSED =
  'That provider account is linked to another account already, or yours already has one from this provider: nothing was linked.';
/** What the account page says back from linking Corp ID. */
const LINKED = 'Corp ID is linked: you can sign in with it from now on.';

/**
 * Issue 26: "Sign in with <name>" in the example app, in Chromium, through a real OpenID
 * provider's (oidc-provider's) login and consent pages, back to the app, signed in.
 */
describe('identity providers in the example app', () => {
  let idp: IdentityProviderProcess;
  let h: Harness;
  let context: BrowserContext;

  beforeAll(async () => {
    idp = await startIdentityProvider(
      [
        {
          client_id: 'example-app',
          client_secret: 'example-secret-0123456789',
          redirect_uris: ['http://localhost:1/api/v1/auth/providers/corp/callback'],
        },
      ],
      { anyLoopbackRedirect: true },
    );
    h = await startHarness({
      AUTH_PROVIDERS: JSON.stringify([
        {
          id: 'corp',
          type: 'oidc',
          name: 'Corp ID',
          issuer: idp.issuer,
          client_id: 'example-app',
          client_secret: 'example-secret-0123456789',
        },
        {
          // An organisation whose provider is the only way in for its addresses.
          id: 'strict',
          type: 'oidc',
          name: 'Strict Co',
          issuer: idp.issuer,
          client_id: 'example-app',
          client_secret: 'example-secret-0123456789',
          domains: ['strict.example'],
          sso_required: true,
        },
      ]),
    });
  });
  afterAll(async () => {
    await h?.close();
    await idp?.stop();
  });
  beforeEach(async () => {
    context = await h.browser.newContext({ viewport: { width: 1000, height: 760 } });
    // A missing result fails with what was awaited, before the test's own timeout.
    context.setDefaultTimeout(10_000);
  });
  afterEach(() => context.close());

  /**
   * From the app's button to the provider, through its login (`login` says who signs in there,
   * `subject:email:verified`) and consent pages, and back to the app.
   */
  async function throughProvider(page: Page, button: string, login: string): Promise<void> {
    await page.click(button);
    await page.waitForURL((url) => url.href.startsWith(idp.issuer));
    await page.fill('input[name="login"]', login);
    await page.fill('input[name="password"]', 'any');
    await page.click('button[type="submit"]');
    await page.waitForSelector('button:has-text("Continue")');
    await page.click('button[type="submit"]');
    await page.waitForURL((url) => url.href.startsWith(h.spa.url));
  }
  /** The provider's button in the "Other ways to sign in" card, beside the login form. */
  const SIGN_IN = '#other-ways #provider-sign-in button:has-text("Sign in with Corp ID")';

  it('signs in through the provider’s login and consent pages and comes back signed in', async () => {
    const tab = await openApp(context, h.spa.url);
    const { page } = tab;
    const email = `browser${process.pid}-${Date.now()}@corp.example`;
    expect(await page.getByRole('button', { name: 'Sign in with Corp ID' }).isVisible()).toBe(true);
    expect(await axeViolations(page)).toEqual([]);
    await throughProvider(page, SIGN_IN, `b-${Date.now()}:${email}:1`);
    await page.waitForSelector('#signed-in:not([hidden])');
    expect(await page.innerText('#user')).toContain(email);
    const access = (await context.cookies(h.apiUrl)).find((c) => c.name === 'access_token');
    expect((jwt.decode(access!.value) as { amr: string[] }).amr).toEqual(['fed']);
    // The account page lists the provider it signs in with.
    await page.waitForSelector('#identity-list li[data-identity="corp"]');
    expect(await axeViolations(page)).toEqual([]);
    // The provider's development pages fetch resources from the internet, which the test machine
    // may not reach: only the app's and the service's requests are judged.
    const ours = (line: string) => line.includes(h.spa.url) || line.includes(h.apiUrl);
    expect(tab.failures.filter(ours)).toEqual([]);
  });

  it('tells, without signing in, that an address belongs to an account', async () => {
    const owner = { email: `taken${process.pid}-${Date.now()}@example.com` };
    await h.t
      .http()
      .post('/api/v1/auth/register')
      .send({ ...owner, username: `taken${Date.now()}`, password: 'correct horse' })
      .expect(201);
    const { page } = await openApp(context, h.spa.url);
    // Said beside the buttons that started it, in view and focused, the login form beside it.
    expect(
      await resultAfter(page, 'other-ways', () =>
        throughProvider(page, SIGN_IN, `t-${Date.now()}:${owner.email}:1`),
      ),
    ).toBe(
      'An account with this email already exists. Sign in to it, then link the provider from your account page.',
    );
    expect(page.url()).not.toContain('error=');
    await page.waitForSelector('#signed-out:not([hidden])');
    expect(await page.isVisible('#task-log-in #login-form')).toBe(true);
  });

  /**
   * Issue 32: an account the provider made has no password. The page asks it for none: it
   * changes its email and deletes itself, and when its sign-in is no longer recent it confirms
   * it is the owner with a code by email or a new sign-in at its provider, in a desktop window
   * and on a phone.
   */
  describe.each(Object.entries(VIEWPORTS))(
    'an account without a password, %s',
    (size, viewport) => {
      let sized: BrowserContext;
      beforeEach(async () => {
        sized = await h.browser.newContext({ viewport });
        sized.setDefaultTimeout(10_000);
      });
      afterEach(() => sized.close());

      /** The session's access cookie, as it would be once its sign-in is older than 10 minutes. */
      async function ageSession(): Promise<void> {
        const cookie = (await sized.cookies(h.apiUrl)).find((c) => c.name === 'access_token')!;
        const claims = jwt.decode(cookie.value) as Record<string, unknown>;
        const aged = signAccess({
          ...claims,
          jti: randomUUID(),
          auth_time: Math.floor(Date.now() / 1000) - 3600,
        });
        await sized.addCookies([{ ...cookie, value: aged }]);
      }

      /** The provider's login page again (a step-up asks it for a new sign-in), back to the app. */
      async function signInAgainAt(page: Page, login: string): Promise<void> {
        await page.waitForURL((url) => url.href.startsWith(idp.issuer));
        await page.fill('input[name="login"]', login);
        await page.fill('input[name="password"]', 'any');
        await page.click('button[type="submit"]');
        await page.waitForURL((url) => url.href.startsWith(h.spa.url));
      }

      it('changes its email and deletes itself, confirming it is the owner by mail and at its provider', async () => {
        const email = `nopw-${size}-${process.pid}-${Date.now()}@corp.example`;
        const login = `np-${size}-${Date.now()}:${email}:1`;
        const tab = await openApp(sized, h.spa.url);
        const { page } = tab;
        await throughProvider(page, SIGN_IN, login);
        await page.waitForSelector('#signed-in:not([hidden]):not([aria-busy])');

        // Nothing on the page asks for, or speaks of, a password it does not have.
        expect(await page.isVisible('#email-password')).toBe(false);
        expect(await page.isVisible('#delete-password')).toBe(false);
        expect(await page.isVisible('#password-form')).toBe(false);
        expect(await page.isVisible('#set-password-send')).toBe(true);
        const cards = `${await page.innerText('#two-step')} ${await page.innerText('#passkeys')}`;
        expect(cards).not.toMatch(/your password/i);
        expect(await page.innerText('#two-step-status')).toBe(
          'Off: signing in asks for no code from an app.',
        );
        expect(await page.innerText('#passkeys-status')).toBe('None yet.');

        // Past STEP_UP_MAX_AGE, the email change asks to confirm it is them: no password field,
        // the ways this account has, and how to set a password.
        await ageSession();
        const newEmail = `moved-${size}-${process.pid}-${Date.now()}@example.com`;
        await page.fill('#email-newEmail', newEmail);
        await page.click('#email-form [type=submit]');
        await page.waitForSelector('#reauth-dialog[open]');
        expect(await page.isVisible('#reauth-password')).toBe(false);
        expect(await page.isVisible('#reauth-no-password')).toBe(true);
        expect(await page.isVisible('#reauth-other-ways >> text=Sign in again with Corp ID')).toBe(
          true,
        );
        expect(await axeViolations(page)).toEqual([]);
        if (size === 'desktop') await screenshot(page, 'step-up-without-password');
        await page.click('#reauth-email');
        await page.waitForSelector('#reauth-email-code:visible');
        expect(await page.innerText('#reauth-email-hint')).toContain(email);
        const mail = h.sink.to(email).pop()!;
        expect(mail.subject).toBe('Your code to confirm it is you on Auth Service');
        await page.fill('#reauth-email-code', /\n(\d{6})\n/.exec(mail.text)![1]);
        const sent = await resultAfter(page, 'email-form', () =>
          page.click('#reauth-form [type=submit]'),
        );
        expect(sent).toBe(`We sent a link to ${newEmail}. Your address changes once you open it.`);
        expect(h.sink.to(newEmail)).toHaveLength(1);

        // Later again: deleting it, confirmed by a new sign-in at the provider. The page is left
        // and comes back, saying so; the deletion then goes through.
        await ageSession();
        await page.click('#delete-form [type=submit]');
        await page.waitForSelector('#reauth-dialog[open]');
        await page.click('#reauth-other-ways >> text=Sign in again with Corp ID');
        await signInAgainAt(page, login);
        await page.waitForSelector('#signed-in:not([hidden]):not([aria-busy])');
        await page.waitForSelector('#account-card-result:not(:empty)');
        expect(await resultOf(page, 'account-card')).toBe(
          'You confirmed it’s you with Corp ID. Make your change again: it goes through now.',
        );
        expect(page.url()).toBe(`${h.spa.url}/`);
        const access = (await sized.cookies(h.apiUrl)).find((c) => c.name === 'access_token')!;
        expect((jwt.decode(access.value) as { amr: string[] }).amr).toEqual(['fed']);
        const deleted = await resultAfter(page, 'login-form', () =>
          page.click('#delete-form [type=submit]'),
        );
        expect(deleted).toBe('Your account was deleted.');
        expect(await page.isVisible('#reauth-dialog')).toBe(false);
        const rows = await h.t.dataSource.query<unknown[]>('SELECT id FROM users WHERE email = ?', [
          email,
        ]);
        expect(rows).toEqual([]);

        // The service answered "confirm it's you" twice, and nothing else failed.
        const ours = (line: string) => line.includes(h.spa.url) || line.includes(h.apiUrl);
        expect(tab.failures.filter(ours)).toEqual([
          `403 ${h.apiUrl}/users/me/email`,
          `403 ${h.apiUrl}/users/me`,
        ]);
        // No script error: the console says only what failed to load (the provider's pages
        // fetch resources from the internet, which the test machine may not reach).
        for (const error of tab.consoleErrors) expect(error).toMatch(/^Failed to load resource/);
      });
    },
  );

  it('links the provider from the account page, and says on that card why a second link was refused', async () => {
    const subject = `l-${Date.now()}`;
    const register = async (tag: string) => {
      const credentials = {
        email: `${tag}${process.pid}-${Date.now()}@example.com`,
        username: `${tag}${Date.now()}`,
        password: 'correct horse',
      };
      await h.t.http().post('/api/v1/auth/register').send(credentials).expect(201);
      return credentials;
    };
    const first = await register('linker');
    const { page } = await openApp(context, h.spa.url);
    await logInThroughPage(page, first);
    await page.waitForSelector('#identities:not([hidden]) #identity-link button');
    await throughProvider(
      page,
      '#identity-link button:has-text("Link Corp ID")',
      `${subject}:${subject}@corp.example:1`,
    );
    await page.waitForSelector('#signed-in:not([hidden])');
    await page.waitForSelector('#identity-list li[data-identity="corp"]');
    await page.waitForSelector('#identities-result:not(:empty)');
    expect(await resultOf(page, 'identities')).toBe(LINKED);
    expect(page.url()).toBe(`${h.spa.url}/`);

    // The same identity of the provider, linked to another account (another browser: the
    // provider's own session is not this one's): refused, and said on the card.
    const other = await h.browser.newContext({ viewport: { width: 1000, height: 760 } });
    other.setDefaultTimeout(10_000);
    try {
      const second = (await openApp(other, h.spa.url)).page;
      await logInThroughPage(second, await register('second'));
      await second.waitForSelector('#identities:not([hidden]) #identity-link button');
      expect(
        await resultAfter(second, 'identities', () =>
          throughProvider(
            second,
            '#identity-link button:has-text("Link Corp ID")',
            `${subject}:${subject}@corp.example:1`,
          ),
        ),
      ).toBe(LINK_REFUSED);
      await second.waitForSelector('#signed-in:not([hidden])');
      expect(second.url()).not.toContain('error=');
      expect(await second.locator('#identity-list li').count()).toBe(0);
    } finally {
      await other.close();
    }
  });

  /** A fresh account of the app's own (email and password), logged in on `page`. */
  async function loggedIn(page: Page, tag: string) {
    const credentials = {
      email: `${tag}${process.pid}-${Date.now()}@example.com`,
      username: `${tag}${Date.now()}`,
      password: 'correct horse',
    };
    await h.t.http().post('/api/v1/auth/register').send(credentials).expect(201);
    await logInThroughPage(page, credentials);
    return credentials;
  }

  for (const [size, viewport] of Object.entries(VIEWPORTS)) {
    /**
     * Issue 32: "Continue with your work email" sends an organisation's address to its own
     * provider (POST /auth/sso/start), and says so when the address has none.
     */
    it(`offers "Continue with your work email", which takes an organisation's address to its provider (${size})`, async () => {
      const { page } = await openApp(context, h.spa.url);
      await page.setViewportSize(viewport);
      await page.click('#other-ways a:has-text("Continue with your work email")');
      await page.waitForSelector('#task-work-email:not([hidden])');
      expect(await page.evaluate(() => document.activeElement?.textContent)).toBe(
        'Continue with your work email',
      );
      expect(await axeViolations(page)).toEqual([]);

      await page.fill('#work-email-email', `ann${Date.now()}@example.com`);
      expect(
        await resultAfter(page, 'work-email-form', () =>
          page.click('#work-email-form [type=submit]'),
        ),
      ).toBe(
        'No organisation sign-in is set up for this address. Log in with your password, or another way.',
      );

      const email = `ann${process.pid}-${Date.now()}@strict.example`;
      await page.fill('#work-email-email', email);
      await page.click('#work-email-form [type=submit]');
      await page.waitForURL((url) => url.href.startsWith(idp.issuer));
      await page.fill('input[name="login"]', `w-${Date.now()}:${email}:1`);
      await page.fill('input[name="password"]', 'any');
      await page.click('button[type="submit"]');
      await page.waitForSelector('button:has-text("Continue")');
      await page.click('button[type="submit"]');
      await page.waitForSelector('#signed-in:not([hidden])');
      expect(await page.innerText('#user')).toContain(email);
      await page.waitForSelector('#identity-list li[data-identity="strict"]');
    });

    /**
     * Issue 32: an address whose organisation signs in only with its provider is refused a
     * password; the page names that provider and puts its button right under the words.
     */
    it(`names the organisation's provider, with its button, when its address must use it (${size})`, async () => {
      const { page } = await openApp(context, h.spa.url);
      await page.setViewportSize(viewport);
      await page.fill('#login-email', 'bo@strict.example');
      await page.fill('#login-password', 'correct horse');
      expect(
        await resultAfter(page, 'login-form', () => page.click('#login-form [type=submit]')),
      ).toBe('Your organisation signs you in with Strict Co: use its button below.');
      const go = '#login-form-result + button';
      expect(await page.textContent(go)).toBe('Continue with Strict Co');
      expect((await placeOf(page, go)).inView).toBe(true);
      expect(await axeViolations(page)).toEqual([]);

      // The reset mail is refused alike, said the same way where it was asked for.
      await page.click('a[href="#forgot-password"]');
      await page.fill('#forgot-email', 'bo@strict.example');
      expect(
        await resultAfter(page, 'forgot-form', () => page.click('#forgot-form [type=submit]')),
      ).toBe('Your organisation signs you in with Strict Co: use its button below.');
      await page.click('#forgot-form-result + button');
      await page.waitForURL((url) => url.href.startsWith(idp.issuer));
    });

    /**
     * Issue 32: the link's start rides on the SameSite=Lax cookie, which a navigation from any
     * site carries. Another site's page sending the browser there is refused; the app's own
     * button (another port of the same host: same-site) still links, and says so.
     */
    it(`refuses a link another site's page starts, and links from the app's own button (${size})`, async () => {
      const { page } = await openApp(context, h.spa.url);
      await page.setViewportSize(viewport);
      await loggedIn(page, 'crosssite');
      await page.waitForSelector('#identities:not([hidden]) #identity-link button');

      const start = `${h.apiUrl}/users/me/identities/corp/start?redirect_to=${encodeURIComponent(
        `${h.spa.url}/`,
      )}`;
      const foreign = await context.newPage();
      await foreign.goto(`${h.foreign.url}/favicon.svg`);
      const [refused] = await Promise.all([
        foreign.waitForResponse((response) => response.url().startsWith(start)),
        foreign.evaluate((url) => location.assign(url), start),
      ]);
      expect((await refused.request().allHeaders())['sec-fetch-site']).toBe('cross-site');
      expect(refused.status()).toBe(403);
      expect(((await refused.json()) as { error: string }).error).toBe('FORBIDDEN_ORIGIN');
      await foreign.waitForLoadState();
      expect(foreign.url().startsWith(idp.issuer)).toBe(false);
      await foreign.close();

      const [sent] = await Promise.all([
        page.waitForRequest((request) => request.url().includes('/users/me/identities/corp/start')),
        throughProvider(
          page,
          '#identity-link button:has-text("Link Corp ID")',
          `c-${Date.now()}:c${Date.now()}@corp.example:1`,
        ),
      ]);
      expect((await sent.allHeaders())['sec-fetch-site']).toBe('same-site');
      await page.waitForSelector('#identity-list li[data-identity="corp"]');
      await page.waitForSelector('#identities-result:not(:empty)');
      const place = await placeOf(page, '#identities-result');
      expect({ text: await resultOf(page, 'identities'), ...place }).toMatchObject({
        text: LINKED,
        inView: true,
        focused: true,
      });
      expect(await axeViolations(page)).toEqual([]);
    });
  }
});
