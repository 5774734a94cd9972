import * as jwt from 'jsonwebtoken';
import { registerAndLogin, uniqueUser } from './support/auth-helpers';
import { freePort } from './support/free-port';
import { GitHubServer } from './support/github-server';
import { Browser } from './support/identity-provider';
import { APP_ORIGIN, TestApp, startTestApp } from './support/test-app';

const BACK = `${APP_ORIGIN}/account`;

/**
 * The GitHub preset (plain OAuth 2, the person read from the API) against a server of GitHub's
 * shape, its addresses overridden through the test-only `endpoints`.
 */
describe('the GitHub preset', () => {
  let t: TestApp;
  let github: GitHubServer;
  let base: string;
  let seq = 0;

  beforeAll(async () => {
    github = new GitHubServer('gh-client', 'gh-secret-0123456789');
    await github.start();
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    t = await startTestApp({
      PUBLIC_URL: base,
      COOKIE_SECURE: 'false',
      AUTH_PROVIDERS: JSON.stringify([
        {
          id: 'github',
          type: 'github',
          name: 'GitHub',
          client_id: 'gh-client',
          client_secret: 'gh-secret-0123456789',
          endpoints: {
            authorization: `${github.url}/login/oauth/authorize`,
            token: `${github.url}/login/oauth/access_token`,
            api: github.url,
          },
        },
      ]),
    });
    await t.app.listen(port, '127.0.0.1');
  });
  afterAll(async () => {
    await t?.close();
    await github?.stop();
  });

  async function signIn(emails: Array<{ email: string; primary: boolean; verified: boolean }>) {
    seq += 1;
    github.next = { id: 9000 + seq, login: `octo-cat${seq}`, emails };
    const browser = new Browser();
    const { url, response } = await browser.follow(
      `${base}/api/v1/auth/providers/github/start?redirect_to=${encodeURIComponent(BACK)}`,
      (next) => next.origin === APP_ORIGIN,
    );
    return { browser, url, response, access: browser.cookie(base, 'access_token') };
  }

  it('signs in with the verified primary address, the login as username', async () => {
    const email = `octo${process.pid}-${Date.now()}@example.com`;
    const { url, access } = await signIn([
      { email: `other${Date.now()}@example.com`, primary: false, verified: true },
      { email, primary: true, verified: true },
    ]);
    expect(url).toBe(BACK);
    expect((jwt.decode(access!) as { amr: string[] }).amr).toEqual(['fed']);
    const me = await t
      .http()
      .get('/api/v1/users/me')
      .set('Authorization', `Bearer ${access!}`)
      .expect(200);
    expect(me.body.data.user).toMatchObject({ email, username: `octo-cat${seq}` });
  });

  it('refuses an unverified primary address that belongs to an account, and links none', async () => {
    const owner = await registerAndLogin(t, uniqueUser('gh-owner'));
    const { url, access } = await signIn([
      { email: owner.user.email, primary: true, verified: false },
    ]);
    expect(url).toBe(`${BACK}?error=PROVIDER_ERROR`);
    expect(access).toBeUndefined();
    const listed = await t
      .http()
      .get('/api/v1/users/me/identities')
      .set('Authorization', `Bearer ${owner.access}`)
      .expect(200);
    expect(listed.body.data.identities).toEqual([]);
  });

  /**
   * Only the primary address, and only verified: GitHub lets anyone add an address to their
   * account, and a secondary one (even verified once) or an unverified primary one is no word
   * that the person holds that mailbox now; an account made with it would be a pre-account
   * takeover of its owner.
   */
  it('takes no address but a verified primary one: no account from the others', async () => {
    const stamp = `${process.pid}-${Date.now()}`;
    for (const emails of [
      [{ email: `unverified${stamp}@example.com`, primary: true, verified: false }],
      [
        { email: `primary${stamp}@example.com`, primary: true, verified: false },
        { email: `secondary${stamp}@example.com`, primary: false, verified: true },
      ],
    ]) {
      const { url, access } = await signIn(emails);
      expect(url).toBe(`${BACK}?error=PROVIDER_ERROR`);
      expect(access).toBeUndefined();
      for (const { email } of emails) {
        const rows = await t.dataSource.query<unknown[]>('SELECT id FROM users WHERE email = ?', [
          email,
        ]);
        expect(rows).toEqual([]);
      }
    }
  });

  it('refuses a forged state', async () => {
    github.next = { id: 1, login: 'x', emails: [] };
    const browser = new Browser();
    const started = await browser.request(
      `${base}/api/v1/auth/providers/github/start?redirect_to=${encodeURIComponent(BACK)}`,
    );
    const authorize = new URL(started.headers.get('location')!);
    expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
    authorize.searchParams.set('state', 'forged');
    const { response } = await browser.follow(authorize.toString());
    expect(response?.status).toBe(400);
    expect(browser.cookie(base, 'access_token')).toBeUndefined();
  });
});
