import { BrowserContext } from 'playwright-core';
import * as jwt from 'jsonwebtoken';
import { IdentityProviderProcess, startIdentityProvider } from '../support/identity-provider';
import { Harness, openApp, startHarness } from './harness';

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
      ]),
    });
  });
  afterAll(async () => {
    await h?.close();
    await idp?.stop();
  });
  beforeEach(async () => {
    context = await h.browser.newContext({ viewport: { width: 1000, height: 760 } });
  });
  afterEach(() => context.close());

  it('signs in through the provider’s login and consent pages and comes back signed in', async () => {
    const tab = await openApp(context, h.spa.url);
    const { page } = tab;
    const email = `browser${process.pid}-${Date.now()}@corp.example`;
    await page.getByRole('button', { name: 'Sign in with Corp ID' }).click();
    await page.waitForURL((url) => url.href.startsWith(idp.issuer));
    await page.fill('input[name="login"]', `b-${Date.now()}:${email}:1`);
    await page.fill('input[name="password"]', 'any');
    await page.click('button[type="submit"]');
    await page.waitForSelector('button:has-text("Continue")');
    await page.click('button[type="submit"]');
    await page.waitForURL((url) => url.href.startsWith(h.spa.url));
    await page.waitForSelector('#signed-in:not([hidden])');
    expect(await page.innerText('#user')).toContain(email);
    const access = (await context.cookies(h.apiUrl)).find((c) => c.name === 'access_token');
    expect((jwt.decode(access!.value) as { amr: string[] }).amr).toEqual(['fed']);
    // The account page lists the provider it signs in with.
    await page.waitForSelector('#identity-list li[data-identity="corp"]');
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
    await page.getByRole('button', { name: 'Sign in with Corp ID' }).click();
    await page.waitForURL((url) => url.href.startsWith(idp.issuer));
    await page.fill('input[name="login"]', `t-${Date.now()}:${owner.email}:1`);
    await page.fill('input[name="password"]', 'any');
    await page.click('button[type="submit"]');
    await page.waitForSelector('button:has-text("Continue")');
    await page.click('button[type="submit"]');
    await page.waitForURL((url) => url.href.startsWith(h.spa.url));
    await page.waitForSelector('#notice:not([hidden])');
    expect(await page.innerText('#notice')).toContain('An account with this email already exists');
    expect(page.url()).not.toContain('error=');
    await page.waitForSelector('#signed-out:not([hidden])');
  });
});
