import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as jwt from 'jsonwebtoken';
import { IdentityProviders1764806400000 } from '../src/database/migrations/1764806400000-identity-providers';
import { EmailCodes } from '../src/email-codes/email-codes.service';
import { Metrics } from '../src/metrics/metrics.service';
import { UserDirectory } from '../src/users/user-directory.service';
import { VerificationTokensService } from '../src/tokens/verification-tokens.service';
import { PASSWORD, cookiesOf, registerAndLogin, uniqueUser } from './support/auth-helpers';
import { Authenticator } from './support/authenticator';
import {
  CreationOptions,
  PasskeyAuthenticator,
  RequestOptions,
} from './support/passkey-authenticator';
import { freePort } from './support/free-port';
import { serviceArgs } from './support/service-build';
import {
  Browser,
  IdentityProviderProcess,
  startIdentityProvider,
} from './support/identity-provider';
import { APP_ORIGIN, TestApp, startTestApp } from './support/test-app';

const BACK = `${APP_ORIGIN}/signed-in`;

/**
 * Issue 26: signing in with an OpenID provider (a real one, oidc-provider, on loopback), through
 * its login and consent pages with a cookie jar, and what the round trip refuses: a wrong state,
 * a replayed callback, a callback in another browser, a wrong nonce, an email that belongs to an
 * account (never linked silently); linking from a signed-in account, unlinking, enterprise SSO.
 */
describe('identity providers (OpenID Connect)', () => {
  let t: TestApp;
  let idp: IdentityProviderProcess;
  let base: string;
  let seq = 0;

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    const redirect = (id: string) => `${base}/api/v1/auth/providers/${id}/callback`;
    idp = await startIdentityProvider([
      {
        client_id: 'auth-service',
        client_secret: 'corp-secret-0123456789',
        redirect_uris: [redirect('corp'), redirect('strict')],
      },
    ]);
    t = await startTestApp({
      PUBLIC_URL: base,
      // The app's (APP_ORIGIN's) host, as its passkeys are: PUBLIC_URL's is an address.
      WEBAUTHN_RP_ID: 'localhost',
      COOKIE_SECURE: 'false',
      METRICS_TOKEN: 'federation-metrics-token-0123456789abcdef',
      AUTH_PROVIDERS: JSON.stringify([
        {
          id: 'corp',
          type: 'oidc',
          name: 'Corp ID',
          issuer: idp.issuer,
          client_id: 'auth-service',
          client_secret: 'corp-secret-0123456789',
          domains: ['corp.example'],
        },
        {
          id: 'strict',
          type: 'oidc',
          name: 'Strict Co',
          issuer: idp.issuer,
          client_id: 'auth-service',
          client_secret: 'corp-secret-0123456789',
          domains: ['strict.example'],
          sso_required: true,
        },
      ]),
    });
    await t.app.listen(port, '127.0.0.1');
  });
  afterAll(async () => {
    await t?.close();
    await idp?.stop();
  });

  const account = (email: string, verified = true) =>
    `sub-${++seq}-${Date.now()}:${email}:${verified ? 1 : 0}`;
  const freshEmail = (prefix: string) => `${prefix}-${++seq}-${Date.now()}@corp.example`;
  const api = (path: string) => `${base}/api/v1${path}`;
  const startUrl = (redirect = BACK) =>
    api(`/auth/providers/corp/start?redirect_to=${encodeURIComponent(redirect)}`);
  /** The signed-in account's linked identities, as GET /users/me/identities lists them. */
  const identitiesOf = (access: string) =>
    t
      .http()
      .get('/api/v1/users/me/identities')
      .set('Authorization', `Bearer ${access}`)
      .expect(200);
  const claimsOf = (token: string) => jwt.decode(token) as Record<string, unknown>;
  const counted = async (outcome: string) =>
    (await t.app.get(Metrics).registry.getSingleMetric('auth_federation_total')!.get()).values.find(
      (value) => value.labels.outcome === outcome,
    )?.value ?? 0;

  /** Start to the provider's redirect back (not yet visited). */
  async function toCallback(
    browser: Browser,
    login: string,
    start = startUrl(),
    provider = 'corp',
  ) {
    const started = await browser.request(start);
    expect(started.status).toBe(302);
    const authorization = started.headers.get('location')!;
    expect(authorization.startsWith(`${idp.issuer}/`)).toBe(true);
    return browser.signInAtProvider(
      authorization,
      login,
      api(`/auth/providers/${provider}/callback`),
    );
  }

  async function signIn(login: string, browser = new Browser(), provider = 'corp') {
    const start = api(`/auth/providers/${provider}/start?redirect_to=${encodeURIComponent(BACK)}`);
    const callback = await toCallback(browser, login, start, provider);
    const answer = await browser.request(callback);
    return { browser, answer, location: answer.headers.get('location') ?? '', callback };
  }

  it('lists the configured providers', async () => {
    const answer = await t.http().get('/api/v1/auth/providers').expect(200);
    expect(answer.body.data).toEqual({
      providers: [
        { id: 'corp', name: 'Corp ID' },
        { id: 'strict', name: 'Strict Co' },
      ],
    });
    const methods = await t.http().get('/api/v1/auth/sign-in-methods').expect(200);
    expect(methods.body.data.methods).toEqual([
      'password',
      'passkey',
      'email_code',
      'identity_provider',
    ]);
  });

  it('counts every outcome from 0 at start', async () => {
    for (const outcome of ['mfa_required', 'linked', 'provider_error']) {
      expect(typeof (await counted(outcome))).toBe('number');
    }
    const text = await t
      .http()
      .get('/metrics')
      .set('Authorization', 'Bearer federation-metrics-token-0123456789abcdef');
    expect(text.text).toContain('auth_federation_total{outcome="mfa_required"}');
  });

  it('signs a new person in, creating a passwordless account with the verified email', async () => {
    const email = freshEmail('new');
    const before = await counted('signed_in');
    const { browser, answer, location } = await signIn(account(email));
    expect(answer.status).toBe(302);
    expect(location).toBe(BACK);
    const access = browser.cookie(base, 'access_token')!;
    expect(claimsOf(access).amr).toEqual(['fed']);
    const me = await t
      .http()
      .get('/api/v1/users/me')
      .set('Authorization', `Bearer ${access}`)
      .expect(200);
    expect(me.body.data.user.email).toBe(email);
    expect(me.body.data.user.emailVerified ?? me.body.data.user.email_verified).toBe(true);
    const listed = await identitiesOf(access);
    expect(listed.body.data.identities).toEqual([
      { provider: 'corp', email, created_at: expect.any(String) },
    ]);
    // No password: a login with any password is refused as a wrong one.
    const login = await t
      .http()
      .post('/api/v1/auth/login')
      .send({ email, password: 'any-password' });
    expect(login.status).toBe(401);
    expect(login.body.error).toBe('LOGIN_FAILED');
    expect(await counted('signed_in')).toBe(before + 1);

    // An administrator sees the identity on the account.
    const admin = await registerAndLogin(t, uniqueUser('admin'));
    await t.app.get(UserDirectory).setRole(admin.user.id, 'admin');
    const seen = await t
      .http()
      .get(`/api/v1/admin/users/${me.body.data.user.id as string}/identities`)
      .set('Authorization', `Bearer ${admin.access}`)
      .expect(200);
    expect(seen.body.data.identities).toEqual([
      { provider: 'corp', email, created_at: expect.any(String) },
    ]);
    const audit = await t.dataSource.query<Array<{ type: string }>>(
      'SELECT type FROM audit_events WHERE user_id = ? ORDER BY created_at',
      [me.body.data.user.id],
    );
    expect(audit.map((row) => row.type)).toEqual(
      expect.arrayContaining(['registered', 'identity_linked', 'login_succeeded']),
    );

    // Deleted by the administrator, the identity goes with the account: signing in again with
    // it makes a new account.
    await t
      .http()
      .delete(`/api/v1/admin/users/${me.body.data.user.id as string}`)
      .set('Authorization', `Bearer ${admin.access}`)
      .expect(200);
    const rows = await t.dataSource.query<unknown[]>(
      'SELECT id FROM user_identities WHERE user_id = ?',
      [me.body.data.user.id],
    );
    expect(rows).toEqual([]);
  });

  it('signs the same identity into the same account again', async () => {
    const login = account(freshEmail('again'));
    const first = await signIn(login);
    const second = await signIn(login);
    const sub = (b: Browser) => claimsOf(b.cookie(base, 'access_token')!).sub;
    expect(sub(second.browser)).toBe(sub(first.browser));
  });

  it('refuses a wrong state, a replayed callback and a callback in another browser', async () => {
    const browser = new Browser();
    const callback = await toCallback(browser, account(freshEmail('state')));
    const forged = new URL(callback);
    forged.searchParams.set('state', 'forged-state-value');
    const wrong = await browser.request(forged.toString());
    expect(wrong.status).toBe(400);
    expect(((await wrong.json()) as { error: string }).error).toBe('PROVIDER_ERROR');

    const stranger = new Browser();
    const elsewhere = await stranger.request(callback);
    expect(elsewhere.status).toBe(302);
    expect(elsewhere.headers.get('location')).toBe(`${BACK}?error=PROVIDER_ERROR`);
    expect(stranger.cookie(base, 'access_token')).toBeUndefined();

    // The stranger's attempt did not end the owner's flow.
    const done = await browser.request(callback);
    expect(done.headers.get('location')).toBe(BACK);
    expect(browser.cookie(base, 'access_token')).toBeDefined();

    const replayed = await new Browser().request(callback);
    expect(replayed.status).toBe(400);
    const again = await browser.request(callback);
    expect(again.status).toBe(400);
  });

  it('refuses an ID token carrying another nonce', async () => {
    const browser = new Browser();
    const started = await browser.request(startUrl());
    const authorization = new URL(started.headers.get('location')!);
    expect(authorization.searchParams.get('nonce')).toBeTruthy();
    authorization.searchParams.set('nonce', 'a-nonce-the-service-never-issued');
    const callback = await browser.signInAtProvider(
      authorization.toString(),
      account(freshEmail('nonce')),
      api('/auth/providers/corp/callback'),
    );
    const answer = await browser.request(callback);
    expect(answer.headers.get('location')).toBe(`${BACK}?error=PROVIDER_ERROR`);
    expect(browser.cookie(base, 'access_token')).toBeUndefined();
  });

  /** What a browser sends when the app's page sends it to the service (a link it follows). */
  const NAVIGATION = {
    'sec-fetch-site': 'same-site',
    'sec-fetch-mode': 'navigate',
    'sec-fetch-dest': 'document',
  };
  const navigate = (browser: Browser, url: string) => browser.request(url, { headers: NAVIGATION });
  const expectNoBody = async (answer: Response) => {
    expect(answer.headers.get('content-type')).toBeNull();
    expect(await answer.text()).toBe('');
  };
  const cookieNames = (answer: Response) =>
    answer.headers.getSetCookie().map((line) => line.slice(0, line.indexOf('=')));

  it("redirects with Location and no body: the flow cookie at the start, the session at the callback, a refusal on the provider's error", async () => {
    const browser = new Browser();
    const started = await navigate(browser, startUrl());
    expect(started.status).toBe(302);
    await expectNoBody(started);
    expect(started.headers.getSetCookie()).toEqual([
      expect.stringMatching(/^auth_flow=[\w-]{43}; Max-Age=600; Path=\/api\/v1; .*HttpOnly/i),
    ]);
    const callback = await browser.signInAtProvider(
      started.headers.get('location')!,
      account(freshEmail('redirects')),
      api('/auth/providers/corp/callback'),
    );
    // The provider's redirect carries what the document lists: its issuer too (RFC 9207).
    const sent = new URL(callback).searchParams;
    expect([...sent.keys()].sort()).toEqual(['code', 'iss', 'state']);
    expect(sent.get('iss')).toBe(idp.issuer);
    const signedIn = await navigate(browser, callback);
    expect(signedIn.status).toBe(302);
    expect(signedIn.headers.get('location')).toBe(BACK);
    await expectNoBody(signedIn);
    expect(cookieNames(signedIn)).toEqual(['access_token', 'refresh_token']);

    // Linking, from the account just signed in, starts alike.
    const link = await navigate(
      browser,
      api(`/users/me/identities/corp/start?redirect_to=${encodeURIComponent(BACK)}`),
    );
    expect(link.status).toBe(302);
    expect(link.headers.get('location')!.startsWith(`${idp.issuer}/`)).toBe(true);
    await expectNoBody(link);
    expect(cookieNames(link)).toEqual(['auth_flow']);

    // The person says no at the provider, which sends them back with its error.
    const state = new URL(link.headers.get('location')!).searchParams.get('state')!;
    const denied = new URLSearchParams({
      error: 'access_denied',
      error_description: 'End-User aborted interaction',
      state,
      iss: idp.issuer,
    });
    const refused = await navigate(
      browser,
      api(`/auth/providers/corp/callback?${denied.toString()}`),
    );
    expect(refused.status).toBe(302);
    expect(refused.headers.get('location')).toBe(`${BACK}?error=PROVIDER_ERROR`);
    await expectNoBody(refused);
    expect(cookieNames(refused)).toEqual([]);

    // An issuer other than the provider's is refused.
    const other = new Browser();
    const forged = new URL(await toCallback(other, account(freshEmail('issuer'))));
    forged.searchParams.set('iss', 'https://issuer.example.net');
    const wrongIssuer = await navigate(other, forged.toString());
    expect(wrongIssuer.headers.get('location')).toBe(`${BACK}?error=PROVIDER_ERROR`);
    expect(other.cookie(base, 'access_token')).toBeUndefined();
  });

  it('never links an identity to an account with its email, verified or not', async () => {
    const owner = await registerAndLogin(t, uniqueUser('owner'));
    for (const verified of [false, true]) {
      const before = await counted('account_exists');
      const { browser, location } = await signIn(account(owner.user.email, verified));
      expect(location).toBe(`${BACK}?error=ACCOUNT_EXISTS`);
      expect(browser.cookie(base, 'access_token')).toBeUndefined();
      expect(await counted('account_exists')).toBe(before + 1);
    }
    const listed = await identitiesOf(owner.access);
    expect(listed.body.data.identities).toEqual([]);
  });

  it('links an identity from the signed-in account, then signs in with it; unlinks it', async () => {
    const owner = await registerAndLogin(t, uniqueUser('linker'));
    const login = account(owner.user.email);
    const browser = new Browser();
    browser.setCookie(base, 'access_token', owner.access);
    const callback = await toCallback(
      browser,
      login,
      api(`/users/me/identities/corp/start?redirect_to=${encodeURIComponent(BACK)}`),
    );
    const linked = await browser.request(callback);
    expect(linked.headers.get('location')).toBe(BACK);
    const listed = await identitiesOf(owner.access);
    expect(listed.body.data.identities).toHaveLength(1);

    const signedIn = await signIn(login);
    expect(signedIn.location).toBe(BACK);
    expect(claimsOf(signedIn.browser.cookie(base, 'access_token')!).sub).toBe(owner.user.id);

    // The account has a password: the identity is not its last way in.
    await t
      .http()
      .delete('/api/v1/users/me/identities/corp')
      .set('Authorization', `Bearer ${owner.access}`)
      .expect(200);
    const after = await identitiesOf(owner.access);
    expect(after.body.data.identities).toEqual([]);
  });

  /**
   * Issue 32: the start of a link rides on the SameSite=Lax access cookie, which a top-level
   * navigation carries from any site. What each page's navigation sends, as Chromium sends it:
   * the app's button (another port of the same host: same-site) gets the round trip; another
   * site's page or link, a URL opened from outside the browser, a script on a foreign origin do
   * not, whatever the session.
   */
  it("starts a link only from the app's own pages: 403 FORBIDDEN_ORIGIN for a cross-site one", async () => {
    const owner = await registerAndLogin(t, uniqueUser('crosssite'));
    const start = `/api/v1/users/me/identities/corp/start?redirect_to=${encodeURIComponent(BACK)}`;
    const navigation = (site: string) => ({
      'Sec-Fetch-Site': site,
      'Sec-Fetch-Mode': 'navigate',
      'Sec-Fetch-Dest': 'document',
      'Sec-Fetch-User': '?1',
    });
    const withCookie = (headers: Record<string, string>, access = owner.access) =>
      t.http().get(start).set('Cookie', `access_token=${access}`).set(headers);
    const outcome = (answer: { status: number; body: { error?: string }; headers: object }) => ({
      status: answer.status,
      error: answer.body.error,
      flow: cookiesOf(answer as never).auth_flow !== undefined,
    });
    const refused = { status: 403, error: 'FORBIDDEN_ORIGIN', flow: false };
    expect(outcome(await withCookie(navigation('cross-site')))).toEqual(refused);
    expect(outcome(await withCookie(navigation('none')))).toEqual(refused);
    expect(outcome(await withCookie({ Origin: 'https://evil.example' }))).toEqual(refused);
    expect(
      outcome(await withCookie({ ...navigation('same-site'), Origin: 'https://evil.example' })),
    ).toEqual(refused);
    // Refused before the session is looked at: an expired or an old one says the same.
    expect(outcome(await withCookie(navigation('cross-site'), 'not-a-token'))).toEqual(refused);

    const started = { status: 302, error: undefined, flow: true };
    for (const headers of [
      navigation('same-site'),
      navigation('same-origin'),
      { ...navigation('same-site'), Origin: APP_ORIGIN },
      {},
    ]) {
      const answer = await withCookie(headers);
      expect(outcome(answer)).toEqual(started);
      expect(answer.headers.location.startsWith(`${idp.issuer}/`)).toBe(true);
    }
    // A bearer token is no cookie a page rides on.
    const bearer = await t
      .http()
      .get(start)
      .set('Authorization', `Bearer ${owner.access}`)
      .set(navigation('cross-site'));
    expect(outcome(bearer)).toEqual(started);
  });

  /**
   * A thief holding a stolen session starts a link; the owner resets the password, which ends
   * every session; the thief's callback then comes back. The link was asked for by a session
   * that no longer exists, so it must not be made.
   */
  it("refuses a link whose round trip ends after the owner's reset ended its session", async () => {
    const owner = await registerAndLogin(t, uniqueUser('stolen'));
    const thief = new Browser();
    thief.setCookie(base, 'access_token', owner.access);
    const callback = await toCallback(
      thief,
      account(freshEmail('thief')),
      api(`/users/me/identities/corp/start?redirect_to=${encodeURIComponent(BACK)}`),
    );

    await t
      .http()
      .post('/api/v1/auth/forgot-password')
      .send({ email: owner.user.email })
      .expect(200);
    const mail = (await t.outbox()).filter((m) => m.to === owner.user.email).pop()!;
    await t
      .http()
      .post('/api/v1/auth/reset-password')
      .send({ token: mail.token, newPassword: `${PASSWORD} again` })
      .expect(200);

    const answer = await thief.request(callback);
    expect(answer.headers.get('location')).toBe(`${BACK}?error=PROVIDER_ERROR`);
    const rows = await t.dataSource.query<unknown[]>(
      'SELECT id FROM user_identities WHERE user_id = ?',
      [owner.user.id],
    );
    expect(rows).toEqual([]);
  });

  it('mails the owner that a sign-in provider was linked, after the answer', async () => {
    const owner = await registerAndLogin(t, uniqueUser('noticed'));
    const browser = new Browser();
    browser.setCookie(base, 'access_token', owner.access);
    const callback = await toCallback(
      browser,
      account(owner.user.email),
      api(`/users/me/identities/corp/start?redirect_to=${encodeURIComponent(BACK)}`),
    );
    expect((await browser.request(callback)).headers.get('location')).toBe(BACK);
    let notice: { subject: string; text: string } | undefined;
    for (let tries = 0; tries < 50 && !notice; tries += 1) {
      notice = (await t.outbox()).find(
        (m) => m.to === owner.user.email && /sign-in provider was linked/i.test(m.subject),
      );
      if (!notice) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(notice).toBeDefined();
    expect(notice!.text).toContain('Corp ID');
    expect(notice!.text).not.toMatch(/https?:/);
  });

  it("keeps a passwordless account's last identity, and lets it set a password by mail", async () => {
    const email = freshEmail('last');
    const { browser } = await signIn(account(email));
    const access = browser.cookie(base, 'access_token')!;
    const refused = await t
      .http()
      .delete('/api/v1/users/me/identities/corp')
      .set('Authorization', `Bearer ${access}`);
    expect(refused.status).toBe(409);
    expect(refused.body.error).toBe('LAST_SIGN_IN_METHOD');

    await t.http().post('/api/v1/auth/forgot-password').send({ email }).expect(200);
    const mail = (await t.outbox()).filter((m) => m.to === email).pop()!;
    await t
      .http()
      .post('/api/v1/auth/reset-password')
      .send({ token: mail.token, newPassword: PASSWORD })
      .expect(200);
    await t.http().post('/api/v1/auth/login').send({ email, password: PASSWORD }).expect(200);
  });

  /**
   * The review's pre-account takeover: an attacker's provider asserts the victim's address
   * without vouching for it (Entra never says email_verified) and so creates the account first,
   * with the attacker's identity linked. The owner's first mailbox proof (here a reset) must cut
   * that identity off, or it signs straight back in.
   */
  it("cuts off an identity linked before the owner's reset first proved the address", async () => {
    const victim = freshEmail('victim');
    const attacker = account(victim, false);
    const first = await signIn(attacker);
    expect(first.location).toBe(BACK);
    const attackerAccess = first.browser.cookie(base, 'access_token')!;
    const userId = claimsOf(attackerAccess).sub as string;

    const taken = await t
      .http()
      .post('/api/v1/auth/register')
      .send({ email: victim, username: `victim${seq}x`, password: PASSWORD });
    expect(taken.status).toBe(409);

    await t.http().post('/api/v1/auth/forgot-password').send({ email: victim }).expect(200);
    const mail = (await t.outbox()).filter((m) => m.to === victim).pop()!;
    await t
      .http()
      .post('/api/v1/auth/reset-password')
      .send({ token: mail.token, newPassword: PASSWORD })
      .expect(200);

    const again = await signIn(attacker);
    expect(again.location).toBe(`${BACK}?error=ACCOUNT_EXISTS`);
    expect(again.browser.cookie(base, 'access_token')).toBeUndefined();
    const rows = await t.dataSource.query<unknown[]>(
      'SELECT id FROM user_identities WHERE user_id = ?',
      [userId],
    );
    expect(rows).toEqual([]);
    const audit = await t.dataSource.query<Array<{ type: string }>>(
      'SELECT type FROM audit_events WHERE user_id = ?',
      [userId],
    );
    expect(audit.map((row) => row.type)).toContain('unproven_identities_unlinked');
    await t
      .http()
      .post('/api/v1/auth/login')
      .send({ email: victim, password: PASSWORD })
      .expect(200);
  });

  it('cuts off such an identity, and its sessions, at the verification link or a mailed code', async () => {
    for (const proof of ['link', 'code'] as const) {
      const victim = freshEmail(`victim-${proof}`);
      const attacker = account(victim, false);
      const first = await signIn(attacker);
      const refresh = first.browser.cookie(base, 'refresh_token');
      expect(refresh).toBeDefined();
      if (proof === 'link') {
        await t
          .http()
          .post('/api/v1/auth/resend-verification-email')
          .send({ email: victim })
          .expect(200);
        const mail = (await t.outbox()).filter((m) => m.to === victim).pop()!;
        await t.http().post('/api/v1/auth/verify-email').send({ token: mail.token }).expect(200);
      } else {
        await t.http().post('/api/v1/auth/email-code').send({ email: victim }).expect(200);
        const mail = (await t.outbox()).filter((m) => m.to === victim).pop()!;
        await t
          .http()
          .post('/api/v1/auth/email-code/verify')
          .send({ token: mail.token })
          .expect(200);
      }
      const again = await signIn(attacker);
      expect(again.location).toBe(`${BACK}?error=ACCOUNT_EXISTS`);
      // The attacker's session from the first sign-in ended with the identity.
      const refreshed = await t
        .http()
        .post('/api/v1/auth/refresh')
        .set('Cookie', `refresh_token=${refresh!}`);
      expect(refreshed.status).toBe(401);
    }
  });

  it('takes no address from a provider that registration would refuse', async () => {
    const stamp = `${++seq}-${Date.now()}`;
    for (const email of [`x${stamp}@corp.example>,y`, `"q${stamp}"@corp.example`]) {
      const { location, browser } = await signIn(account(email));
      expect(location).toBe(`${BACK}?error=PROVIDER_ERROR`);
      expect(browser.cookie(base, 'access_token')).toBeUndefined();
    }
    const rows = await t.dataSource.query<unknown[]>('SELECT id FROM users WHERE email LIKE ?', [
      `%${stamp}%`,
    ]);
    expect(rows).toEqual([]);
  });

  it('sends a disabled account back with PROVIDER_ERROR, the one code the contract has for it', async () => {
    const login = account(freshEmail('disabled'));
    const first = await signIn(login);
    const userId = claimsOf(first.browser.cookie(base, 'access_token')!).sub as string;
    const admin = await registerAndLogin(t, uniqueUser('disabler'));
    await t.app.get(UserDirectory).setRole(admin.user.id, 'admin');
    await t
      .http()
      .post(`/api/v1/admin/users/${userId}/disable`)
      .set('Authorization', `Bearer ${admin.access}`)
      .expect(200);
    const again = await signIn(login);
    expect(again.location).toBe(`${BACK}?error=PROVIDER_ERROR`);
    expect(again.browser.cookie(base, 'access_token')).toBeUndefined();
  });

  /**
   * The flow cookie goes to every start route (the sign-in's under /auth, the link's under
   * /users/me): scoped to /auth/providers, a browser did not send it to the link's start, which
   * then set a new value and orphaned a sign-in in progress in another tab.
   */
  it("keeps one flow cookie for the API's start routes, so a link does not end a sign-in", async () => {
    const flowCookie = (answer: { headers: Record<string, unknown> }) =>
      ([] as string[])
        .concat((answer.headers['set-cookie'] as string[] | undefined) ?? [])
        .find((line) => line.startsWith('auth_flow='))!;
    const signInStart = await t
      .http()
      .get(`/api/v1/auth/providers/corp/start?redirect_to=${encodeURIComponent(BACK)}`)
      .expect(302);
    const issued = flowCookie(signInStart);
    expect(issued).toMatch(/; Path=\/api\/v1(;|$)/i);
    const value = /^auth_flow=([^;]+)/.exec(issued)![1];

    const owner = await registerAndLogin(t, uniqueUser('two-tabs'));
    const linkStart = await t
      .http()
      .get(`/api/v1/users/me/identities/corp/start?redirect_to=${encodeURIComponent(BACK)}`)
      .set('Authorization', `Bearer ${owner.access}`)
      .set('Cookie', `auth_flow=${value}`)
      .expect(302);
    expect(/^auth_flow=([^;]+)/.exec(flowCookie(linkStart))![1]).toBe(value);
  });

  it('answers where an email domain signs in, and 404 for others', async () => {
    const answer = await t
      .http()
      .post('/api/v1/auth/sso/start')
      .send({ email: 'Ann@Corp.Example', redirect_to: BACK })
      .expect(200);
    expect(answer.body.data.provider).toBe('corp');
    expect(answer.body.data.url).toBe(startUrl());
    const none = await t
      .http()
      .post('/api/v1/auth/sso/start')
      .send({ email: 'ann@elsewhere.example', redirect_to: BACK });
    expect(none.status).toBe(404);
    expect(none.body.error).toBe('SSO_NOT_CONFIGURED');
    const foreign = await t
      .http()
      .post('/api/v1/auth/sso/start')
      .send({ email: 'ann@corp.example', redirect_to: 'https://evil.example/x' });
    expect(foreign.status).toBe(400);
    expect(foreign.body.error).toBe('VALIDATION_ERROR');
  });

  it('refuses a redirect_to outside APP_ORIGINS and an unknown provider', async () => {
    const bad = await t
      .http()
      .get('/api/v1/auth/providers/corp/start?redirect_to=https://evil.example/');
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('VALIDATION_ERROR');
    const missing = await t.http().get('/api/v1/auth/providers/corp/start');
    expect(missing.status).toBe(400);
    const unknown = await t
      .http()
      .get(`/api/v1/auth/providers/nope/start?redirect_to=${encodeURIComponent(BACK)}`);
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toBe('PROVIDER_NOT_FOUND');
  });

  it('refuses password logins of a domain that must use its SSO, whatever the password', async () => {
    const login = await t
      .http()
      .post('/api/v1/auth/login')
      .send({ email: 'bo@Strict.Example', password: 'whatever' });
    expect(login.status).toBe(403);
    expect(login.body.error).toBe('SSO_REQUIRED');
    // However the domain is spelled: ſ (U+017F) is s to IDNA and to the mail that reaches it.
    for (const email of ['bo@ſtrict.example', 'bo@STRICT.EXAMPLE']) {
      const spelled = await t.http().post('/api/v1/auth/login').send({ email, password: 'x' });
      expect({ email, status: spelled.status, error: spelled.body.error }).toEqual({
        email,
        status: 403,
        error: 'SSO_REQUIRED',
      });
    }
    const sso = await t
      .http()
      .post('/api/v1/auth/sso/start')
      .send({ email: 'bo@strict.example', redirect_to: BACK })
      .expect(200);
    expect(sso.body.data.provider).toBe('strict');
  });

  it('refuses registration and sign-in by a mailed code in a domain that must use its SSO', async () => {
    const email = `bo-${++seq}@Strict.Example`;
    const registered = await t
      .http()
      .post('/api/v1/auth/register')
      .send({ email, username: `strictbo${seq}`, password: PASSWORD });
    expect(registered.status).toBe(403);
    expect(registered.body.error).toBe('SSO_REQUIRED');
    const rows = await t.dataSource.query<unknown[]>(
      'SELECT id FROM users WHERE email_normalized = ?',
      [email.toLowerCase()],
    );
    expect(rows).toEqual([]);

    const requested = await t.http().post('/api/v1/auth/email-code').send({ email });
    expect(requested.status).toBe(403);
    expect(requested.body.error).toBe('SSO_REQUIRED');
    const typed = await t
      .http()
      .post('/api/v1/auth/email-code/verify')
      .send({ email, code: '123456' });
    expect(typed.status).toBe(403);
    expect(typed.body.error).toBe('SSO_REQUIRED');

    // An account of the domain (made through its own provider) holding a code's link: refused.
    const own = await signIn(account(`link-${++seq}@strict.example`), new Browser(), 'strict');
    expect(own.location).toBe(BACK);
    const userId = claimsOf(own.browser.cookie(base, 'access_token')!).sub as string;
    const issued = await t.app.get(EmailCodes).issue(userId);
    const linked = await t
      .http()
      .post('/api/v1/auth/email-code/verify')
      .send({ token: issued.token });
    expect(linked.status).toBe(403);
    expect(linked.body.error).toBe('SSO_REQUIRED');
  });

  /**
   * Issue 32: a passkey got around `sso_required`. An account that came to be on such a domain
   * with a passkey and a password of its own (here by an email change; an operator marking the
   * domain's provider the only way in does the same): the passkey alone signs in no more, and
   * neither a passkey nor a password can be added or set.
   */
  it("refuses an SSO domain's account a passkey sign-in, and adding a passkey or a password", async () => {
    const owner = await registerAndLogin(t, uniqueUser('ssopasskey'));
    const bearer = { Authorization: `Bearer ${owner.access}` };
    const authenticator = new PasskeyAuthenticator(APP_ORIGIN);
    const begun = await t.http().post('/api/v1/users/me/passkeys/options').set(bearer).expect(200);
    await t
      .http()
      .post('/api/v1/users/me/passkeys')
      .set(bearer)
      .send({ response: authenticator.create(begun.body.data.options as CreationOptions) })
      .expect(201);
    // Options handed out before the move, answered after it.
    const pending = await t
      .http()
      .post('/api/v1/users/me/passkeys/options')
      .set(bearer)
      .expect(200);

    const email = `moved-${++seq}-${Date.now()}@strict.example`;
    await t
      .http()
      .post('/api/v1/users/me/email')
      .set(bearer)
      .send({ newEmail: email, password: PASSWORD })
      .expect(200);
    const link = (await t.outbox()).filter((m) => m.to === email).pop()!;
    await t.http().post('/api/v1/users/me/email/confirm').send({ token: link.token }).expect(200);

    const options = await t.http().post('/api/v1/auth/passkey/options').expect(200);
    const signIn = await t
      .http()
      .post('/api/v1/auth/passkey/verify')
      .set('Origin', APP_ORIGIN)
      .send({ response: authenticator.get(options.body.data.options as RequestOptions) });
    expect({ status: signIn.status, error: signIn.body.error }).toEqual({
      status: 403,
      error: 'SSO_REQUIRED',
    });
    expect(cookiesOf(signIn).access_token).toBeUndefined();
    const sessions = await t.dataSource.query<unknown[]>(
      'SELECT id FROM refresh_sessions WHERE user_id = ?',
      [owner.user.id],
    );
    expect(sessions).toHaveLength(1);

    const refused: Array<[string, { status: number; body: { error?: string } }]> = [
      ['passkey options', await t.http().post('/api/v1/users/me/passkeys/options').set(bearer)],
      [
        'passkey registration',
        await t
          .http()
          .post('/api/v1/users/me/passkeys')
          .set(bearer)
          .send({
            response: new PasskeyAuthenticator(APP_ORIGIN).create(
              pending.body.data.options as CreationOptions,
            ),
          }),
      ],
      [
        'password change',
        await t
          .http()
          .post('/api/v1/users/me/password')
          .set(bearer)
          .send({ currentPassword: PASSWORD, newPassword: `${PASSWORD} two` }),
      ],
      ['forgot-password', await t.http().post('/api/v1/auth/forgot-password').send({ email })],
      ['its alias', await t.http().post('/api/v1/email/forgot-password').send({ email })],
      [
        'reset-password {email}',
        await t.http().post('/api/v1/auth/reset-password').send({ email }),
      ],
    ];
    expect(refused.map(([what, r]) => [what, r.status, r.body.error])).toEqual(
      refused.map(([what]) => [what, 403, 'SSO_REQUIRED']),
    );
    expect((await t.outbox()).filter((m) => m.to === email)).toHaveLength(1);
    const passkeys = await t.http().get('/api/v1/users/me/passkeys').set(bearer).expect(200);
    expect(passkeys.body.data.passkeys).toHaveLength(1);
  });

  it("refuses an SSO domain's account a password by a reset link (an administrator's too) or by leaving", async () => {
    const own = await signIn(account(`reset-${++seq}@strict.example`), new Browser(), 'strict');
    const userId = claimsOf(own.browser.cookie(base, 'access_token')!).sub as string;
    // A link mailed before the domain's provider became the only way in.
    const token = await t.app
      .get(VerificationTokensService)
      .issue(t.dataSource.manager, userId, 'password_reset', 3600);
    const reset = await t
      .http()
      .post('/api/v1/auth/reset-password')
      .send({ token, newPassword: PASSWORD });
    expect({ status: reset.status, error: reset.body.error }).toEqual({
      status: 403,
      error: 'SSO_REQUIRED',
    });
    const [row] = await t.dataSource.query<Array<{ password_hash: string | null }>>(
      'SELECT password_hash FROM users WHERE id = ?',
      [userId],
    );
    expect(row.password_hash).toBeNull();

    // Nor can it move off the domain, where a reset mail would give it a password.
    const access = own.browser.cookie(base, 'access_token')!;
    const moved = await t
      .http()
      .post('/api/v1/users/me/email')
      .set('Authorization', `Bearer ${access}`)
      .send({ newEmail: `away-${seq}@elsewhere.example`, password: 'no password' });
    expect({ status: moved.status, error: moved.body.error }).toEqual({
      status: 403,
      error: 'SSO_REQUIRED',
    });

    const admin = await registerAndLogin(t, uniqueUser('ssoadmin'));
    await t.app.get(UserDirectory).setRole(admin.user.id, 'admin');
    const mailed = await t
      .http()
      .post(`/api/v1/admin/users/${userId}/password-reset`)
      .set('Authorization', `Bearer ${admin.access}`)
      .send({});
    expect({ status: mailed.status, error: mailed.body.error }).toEqual({
      status: 403,
      error: 'SSO_REQUIRED',
    });
  });

  it("creates and signs in an SSO domain's accounts only through that domain's provider", async () => {
    const email = `cy-${++seq}-${Date.now()}@strict.example`;
    const elsewhere = await signIn(account(email));
    expect(elsewhere.location).toBe(`${BACK}?error=PROVIDER_ERROR`);
    const none = await t.dataSource.query<unknown[]>('SELECT id FROM users WHERE email = ?', [
      email,
    ]);
    expect(none).toEqual([]);

    const own = await signIn(account(email), new Browser(), 'strict');
    expect(own.location).toBe(BACK);
    const access = own.browser.cookie(base, 'access_token')!;

    // Another provider's identity, linked from the account, does not sign it in.
    const other = account(`cy-other-${seq}@elsewhere.example`);
    const linking = new Browser();
    linking.setCookie(base, 'access_token', access);
    const callback = await toCallback(
      linking,
      other,
      api(`/users/me/identities/corp/start?redirect_to=${encodeURIComponent(BACK)}`),
    );
    expect((await linking.request(callback)).headers.get('location')).toBe(BACK);
    const viaCorp = await signIn(other);
    expect(viaCorp.location).toBe(`${BACK}?error=PROVIDER_ERROR`);
    expect(viaCorp.browser.cookie(base, 'access_token')).toBeUndefined();
  });

  it('asks an account with a second factor for it after a federated sign-in', async () => {
    const owner = await registerAndLogin(t, uniqueUser('twofactor'));
    const bearer = { Authorization: `Bearer ${owner.access}` };
    const begun = await t.http().post('/api/v1/users/me/mfa/totp').set(bearer).expect(200);
    const app = new Authenticator(begun.body.data.secret as string);
    await t
      .http()
      .post('/api/v1/users/me/mfa/totp/confirm')
      .set(bearer)
      .send({ code: await app.code() })
      .expect(200);
    const login = account(owner.user.email);
    const linking = new Browser();
    linking.setCookie(base, 'access_token', owner.access);
    const callback = await toCallback(
      linking,
      login,
      api(`/users/me/identities/corp/start?redirect_to=${encodeURIComponent(BACK)}`),
    );
    expect((await linking.request(callback)).headers.get('location')).toBe(BACK);

    const before = await counted('mfa_required');
    const { browser, location } = await signIn(login);
    expect(browser.cookie(base, 'access_token')).toBeUndefined();
    const fragment = new URLSearchParams(new URL(location).hash.slice(1));
    expect(location.startsWith(`${BACK}#`)).toBe(true);
    expect(fragment.get('mfa_required')).toBe('true');
    expect(fragment.get('methods')).toBe('totp,recovery_code');
    expect(await counted('mfa_required')).toBe(before + 1);
    const verified = await t
      .http()
      .post('/api/v1/auth/mfa/verify')
      .send({ challenge: fragment.get('challenge'), code: await app.code() })
      .expect(200);
    const access = verified.headers['set-cookie'] as unknown as string[];
    const token = /access_token=([^;]+)/.exec(access.join('\n'))![1];
    expect(claimsOf(token).amr).toEqual(['fed', 'otp']);
  });
  // Last: it runs the migration's down against this suite's database.
  it('will not go back below the identity providers while passwordless accounts exist', async () => {
    const { browser } = await signIn(account(freshEmail('kept')));
    const userId = claimsOf(browser.cookie(base, 'access_token')!).sub as string;
    const runner = t.dataSource.createQueryRunner();
    try {
      await expect(new IdentityProviders1764806400000().down(runner)).rejects.toThrow(
        /passwordless/,
      );
    } finally {
      await runner.release();
    }
    const rows = await t.dataSource.query<unknown[]>('SELECT id FROM users WHERE id = ?', [userId]);
    expect(rows).toHaveLength(1);
  });
});

/**
 * openid-client checks an ID token from the token endpoint for its issuer, audience, expiry and
 * nonce, but its signature only once `enableNonRepudiationChecks` is on: a provider whose keys do
 * not verify its tokens must get no sign-in.
 */
describe('identity providers: the ID token signature', () => {
  let t: TestApp;
  let idp: IdentityProviderProcess;
  let base: string;

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    idp = await startIdentityProvider(
      [
        {
          client_id: 'auth-service',
          client_secret: 'corp-secret-0123456789',
          redirect_uris: [`${base}/api/v1/auth/providers/corp/callback`],
        },
      ],
      { foreignJwks: true },
    );
    t = await startTestApp({
      PUBLIC_URL: base,
      COOKIE_SECURE: 'false',
      AUTH_PROVIDERS: JSON.stringify([
        {
          id: 'corp',
          type: 'oidc',
          name: 'Corp ID',
          issuer: idp.issuer,
          client_id: 'auth-service',
          client_secret: 'corp-secret-0123456789',
        },
      ]),
    });
    await t.app.listen(port, '127.0.0.1');
  });
  afterAll(async () => {
    await t?.close();
    await idp?.stop();
  });

  it("refuses an ID token the provider's published keys do not verify", async () => {
    const browser = new Browser();
    const started = await browser.request(
      `${base}/api/v1/auth/providers/corp/start?redirect_to=${encodeURIComponent(BACK)}`,
    );
    const callback = await browser.signInAtProvider(
      started.headers.get('location')!,
      `forged-${Date.now()}:forged${Date.now()}@corp.example:1`,
      `${base}/api/v1/auth/providers/corp/callback`,
    );
    const answer = await browser.request(callback);
    expect(answer.headers.get('location')).toBe(`${BACK}?error=PROVIDER_ERROR`);
    expect(browser.cookie(base, 'access_token')).toBeUndefined();
  });
});

describe('identity providers at boot', () => {
  it('stops the real process with exit 1 and one line naming each bad entry', () => {
    const cwd = mkdtempSync(join(tmpdir(), 'auth-providers-boot-'));
    try {
      const result = spawnSync(process.execPath, serviceArgs('main'), {
        cwd,
        env: {
          PATH: process.env.PATH,
          NODE_ENV: 'test',
          DATA_DIR: cwd,
          TS_NODE_PROJECT: join(__dirname, '../tsconfig.json'),
          AUTH_PROVIDERS: JSON.stringify([
            { id: 'ok', type: 'google', name: 'Google', client_id: 'c', client_secret: 's' },
            { id: 'acme', type: 'oidc', name: 'Acme', client_id: 'c', client_secret: 's' },
            { id: 'gh', type: 'github', name: 'GitHub', client_id: 'c' },
          ]),
        },
        encoding: 'utf8',
        timeout: 60_000,
      });
      expect(result.status).toBe(1);
      expect(result.stderr).toBe(
        'Invalid configuration: AUTH_PROVIDERS has bad entries: ' +
          'entry 2 ("acme"): issuer is required for oidc; ' +
          'entry 3 ("gh"): client_secret must be a non-empty string\n',
      );
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });
});
