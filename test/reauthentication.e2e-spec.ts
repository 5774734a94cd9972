import * as jwt from 'jsonwebtoken';
import { createHash, randomUUID } from 'node:crypto';
import { ProviderFlowStates } from '../src/identity-providers/provider-flow-states.service';
import { User } from '../src/users/user.entity';
import { PASSWORD, registerAndLogin, registerUser, uniqueUser } from './support/auth-helpers';
import { signAccess } from './support/access-tokens';
import { Authenticator } from './support/authenticator';
import { freePort } from './support/free-port';
import {
  Browser,
  IdentityProviderProcess,
  startIdentityProvider,
} from './support/identity-provider';
import { ReceivedMail } from './support/mailbox';
import {
  CreationOptions,
  PasskeyAuthenticator,
  RequestOptions,
} from './support/passkey-authenticator';
import { APP_ORIGIN, TestApp, startTestApp } from './support/test-app';

const BACK = `${APP_ORIGIN}/`;
const CODE_SUBJECT = 'Your code to confirm it is you on Auth Service';
type Claims = Record<string, unknown> & { sid: string; auth_time: number; amr: string[] };

/**
 * Issue 32, item 1: an account without a password (made through an identity provider, a real
 * one on loopback, or whose password a mailed code's first proof removed) is not stuck. It
 * changes its email, deletes itself and switches its second factor off with a recent sign-in
 * instead of a password, and renews that sign-in (`POST /auth/reauthenticate`, same session)
 * with each proof an account can have: a fresh sign-in at its provider, a code mailed to it, a
 * passkey. An account with a password still gives it, exactly as before. Requests go as the
 * example app's page sends them: its Origin and the cookies, and a navigation for the provider.
 */
describe('step-up with every proof, and accounts without a password', () => {
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
        redirect_uris: [redirect('corp'), redirect('other'), redirect('strict')],
      },
    ]);
    const provider = (id: string, name: string, extra: object = {}) => ({
      id,
      type: 'oidc',
      name,
      issuer: idp.issuer,
      client_id: 'auth-service',
      client_secret: 'corp-secret-0123456789',
      ...extra,
    });
    t = await startTestApp({
      PUBLIC_URL: base,
      COOKIE_SECURE: 'false',
      // The app's page runs the passkey ceremonies: the relying party is its host.
      WEBAUTHN_RP_ID: 'localhost',
      WEBAUTHN_ORIGINS: APP_ORIGIN,
      AUTH_PROVIDERS: JSON.stringify([
        provider('corp', 'Corp ID'),
        provider('other', 'Other ID'),
        provider('strict', 'Strict Co', { domains: ['strict.example'], sso_required: true }),
      ]),
    });
    await t.app.listen(port, '127.0.0.1');
  });
  afterAll(async () => {
    await t?.close();
    await idp?.stop();
  });

  const api = (path: string) => `${base}/api/v1${path}`;
  const stamp = () => `${++seq}-${Date.now()}`;
  const claimsOf = (token: string) => jwt.decode(token) as Claims;
  const accessOf = (browser: Browser) => browser.cookie(base, 'access_token')!;
  const mailsTo = async (email: string) => (await t.outbox()).filter((m) => m.to === email);
  const codeOf = (mail: ReceivedMail) => /\n(\d{6})\n/.exec(mail.text)?.[1] ?? '';

  /** A call of the app's page: its Origin, the browser's cookies, JSON. */
  async function call(browser: Browser, method: string, path: string, body?: object) {
    const response = await browser.request(api(path), {
      method,
      headers: {
        origin: APP_ORIGIN,
        'sec-fetch-site': 'same-site',
        'sec-fetch-mode': 'cors',
        ...(body ? { 'content-type': 'application/json' } : {}),
      },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await response.text();
    // As supertest's `body`: whatever JSON came back.
    const parsed = text ? JSON.parse(text) : {};
    return { status: response.status, body: parsed };
  }
  const expectRefused = (
    answer: { status: number; body: Record<string, unknown> },
    status: number,
    error: string,
  ) => expect({ status: answer.status, error: answer.body.error }).toEqual({ status, error });

  /** Through the provider's pages, from an authorization URL to its redirect back. */
  const atProvider = (browser: Browser, authorization: string, login: string, provider: string) =>
    browser.signInAtProvider(authorization, login, api(`/auth/providers/${provider}/callback`));

  /** A new person signs in with the provider: an account without a password. */
  async function providerAccount(domain = 'corp.example', provider = 'corp') {
    const email = `nopw-${stamp()}@${domain}`;
    const login = `sub-${stamp()}:${email}:1`;
    const browser = new Browser();
    const started = await browser.request(
      api(`/auth/providers/${provider}/start?redirect_to=${encodeURIComponent(BACK)}`),
    );
    const callback = await atProvider(browser, started.headers.get('location')!, login, provider);
    expect((await browser.request(callback)).headers.get('location')).toBe(BACK);
    return { browser, email, login, id: claimsOf(accessOf(browser)).sub as string };
  }

  /** The browser's access token as its session's would be, signed in `seconds` ago. */
  function age(browser: Browser, seconds: number): string {
    const claims = claimsOf(accessOf(browser));
    const aged = signAccess({
      ...claims,
      jti: randomUUID(),
      auth_time: Math.floor(Date.now() / 1000) - seconds,
    });
    browser.setCookie(base, 'access_token', aged);
    return aged;
  }

  /** The step-up's navigation: start, the provider's login page again, back to the callback. */
  async function stepUpThroughProvider(browser: Browser, login: string, provider = 'corp') {
    const started = await browser.request(
      api(
        `/auth/reauthenticate/providers/${provider}/start?redirect_to=${encodeURIComponent(BACK)}`,
      ),
      { headers: { 'sec-fetch-site': 'same-site', 'sec-fetch-mode': 'navigate' } },
    );
    expect(started.status).toBe(302);
    const authorization = new URL(started.headers.get('location')!);
    return { authorization, back: await atProvider(browser, authorization.href, login, provider) };
  }

  it('says in the profile whether the account has a password, and which proofs it can give', async () => {
    const { browser } = await providerAccount();
    const me = await call(browser, 'GET', '/users/me');
    expect(me.body.data.user).toMatchObject({
      has_password: false,
      reauthentication_methods: ['identity_provider', 'email_code'],
    });
    const withPassword = await registerAndLogin(t, uniqueUser('haspw'));
    const profile = await t
      .http()
      .get('/api/v1/users/me')
      .set('Authorization', `Bearer ${withPassword.access}`)
      .expect(200);
    expect(profile.body.data.user).toMatchObject({
      has_password: true,
      reauthentication_methods: ['password', 'email_code'],
    });
  });

  it('changes its email and deletes itself with a recent sign-in instead of a password', async () => {
    const { browser, email, id } = await providerAccount();
    const newEmail = `moved-${stamp()}@example.com`;
    // Sending a password it does not have is a mistake, said as one; nothing is mailed.
    const withPassword = await call(browser, 'POST', '/users/me/email', {
      newEmail,
      password: 'anything',
    });
    expectRefused(withPassword, 400, 'VALIDATION_ERROR');
    expect(withPassword.body.details).toEqual([expect.objectContaining({ field: 'password' })]);
    const asked = await call(browser, 'POST', '/users/me/email', { newEmail });
    expect(asked.status).toBe(200);
    expect((await mailsTo(newEmail)).map((m) => m.subject)).toEqual([
      'Confirm your new email address for Auth Service',
    ]);

    // Past STEP_UP_MAX_AGE, the same session is asked to confirm it is them first.
    age(browser, 601);
    expectRefused(
      await call(browser, 'POST', '/users/me/email', { newEmail }),
      403,
      'REAUTHENTICATION_REQUIRED',
    );
    expectRefused(await call(browser, 'DELETE', '/users/me', {}), 403, 'REAUTHENTICATION_REQUIRED');
    age(browser, 5);
    const deleted = await call(browser, 'DELETE', '/users/me', {});
    expect(deleted).toEqual({ status: 200, body: { success: true, message: 'Account deleted' } });
    expect(browser.cookie(base, 'access_token')).toBeUndefined();
    const rows = await t.dataSource.query<unknown[]>('SELECT id FROM users WHERE id = ?', [id]);
    expect(rows).toEqual([]);
    // The account's address heard of the change asked for, and of nothing else.
    expect((await mailsTo(email)).map((m) => m.subject)).toEqual([
      'Someone asked to change the email address of your Auth Service account',
    ]);
  });

  it('switches its second factor off with a recent sign-in, or its code', async () => {
    const { browser } = await providerAccount();
    const begun = await call(browser, 'POST', '/users/me/mfa/totp');
    const app = new Authenticator(begun.body.data.secret as string);
    const on = await call(browser, 'POST', '/users/me/mfa/totp/confirm', {
      code: await app.code(),
    });
    expect(on.status).toBe(200);
    expect(
      (await call(browser, 'GET', '/users/me')).body.data.user.reauthentication_methods,
    ).toEqual(['totp', 'identity_provider', 'email_code']);
    expectRefused(
      await call(browser, 'DELETE', '/users/me/mfa/totp', { password: 'anything' }),
      400,
      'VALIDATION_ERROR',
    );
    age(browser, 601);
    expectRefused(
      await call(browser, 'DELETE', '/users/me/mfa/totp', {}),
      403,
      'REAUTHENTICATION_REQUIRED',
    );
    age(browser, 5);
    expect((await call(browser, 'DELETE', '/users/me/mfa/totp', {})).status).toBe(200);
    expect((await call(browser, 'GET', '/users/me/mfa')).body.data).toEqual({
      totp: false,
      recovery_codes_left: 0,
    });
  });

  it('still asks an account with a password for it, exactly as before', async () => {
    const owner = await registerAndLogin(t, uniqueUser('keeps'));
    const as = (method: 'post' | 'delete', path: string, body: object) =>
      t.http()[method](`/api/v1${path}`).set('Authorization', `Bearer ${owner.access}`).send(body);
    for (const [method, path, body] of [
      ['post', '/users/me/email', { newEmail: uniqueUser('new').email }],
      ['delete', '/users/me', {}],
      ['delete', '/users/me/mfa/totp', {}],
    ] as const) {
      const refused = await as(method, path, body);
      expect({ status: refused.status, error: refused.body.error }).toEqual({
        status: 400,
        error: 'VALIDATION_ERROR',
      });
      expect(refused.body.details).toEqual(
        expect.arrayContaining([expect.objectContaining({ field: 'password' })]),
      );
    }
    const wrong = await as('delete', '/users/me', { password: 'not the password' });
    expect(wrong.body.error).toBe('INVALID_PASSWORD');
    await as('delete', '/users/me', { password: PASSWORD }).expect(200);
  });

  it('steps up with a fresh sign-in at its provider: the same session, a new auth_time, amr fed', async () => {
    const { browser, login } = await providerAccount();
    const before = claimsOf(age(browser, 601));
    expectRefused(await call(browser, 'DELETE', '/users/me', {}), 403, 'REAUTHENTICATION_REQUIRED');

    const { authorization, back } = await stepUpThroughProvider(browser, login);
    // The provider is asked for a new sign-in, not a session it holds.
    expect(authorization.searchParams.get('prompt')).toBe('login');
    expect(authorization.searchParams.get('max_age')).toBe('0');
    const answer = await browser.request(back);
    expect(answer.status).toBe(302);
    expect(answer.headers.get('location')).toBe(BACK);
    const after = claimsOf(accessOf(browser));
    expect(after).toMatchObject({ sub: before.sub, sid: before.sid, amr: ['fed'] });
    expect(after.auth_time).toBeGreaterThan(before.auth_time + 590);
    // The refresh cookie was rotated with it: it goes on renewing the same session.
    const refreshed = await call(browser, 'POST', '/auth/refresh');
    expect(refreshed.status).toBe(200);
    expect(claimsOf(accessOf(browser)).sid).toBe(before.sid);
    expect((await call(browser, 'DELETE', '/users/me', {})).status).toBe(200);
  });

  it('refuses a step-up the provider answered from a sign-in older than the start', async () => {
    const { browser, login } = await providerAccount();
    const aged = age(browser, 601);
    const started = await browser.request(
      api(`/auth/reauthenticate/providers/corp/start?redirect_to=${encodeURIComponent(BACK)}`),
      { headers: { 'sec-fetch-site': 'same-site', 'sec-fetch-mode': 'navigate' } },
    );
    // A provider that does not honour the request for a new sign-in answers from the session it
    // holds (the sign-in above); as far as the flow knows, it began five minutes after that: the
    // same flow, sealed by the service as if opened then (the state carries its start).
    const authorization = new URL(started.headers.get('location')!);
    authorization.searchParams.delete('prompt');
    authorization.searchParams.set('max_age', '86400');
    const claims = claimsOf(aged);
    const user = await t.dataSource
      .getRepository(User)
      .findOneByOrFail({ id: claims.sub as string });
    const later = t.app.get(ProviderFlowStates).open(
      {
        provider: 'corp',
        purpose: 'reauth',
        userId: user.id,
        tokenVersion: user.tokenVersion,
        sessionId: claims.sid,
        redirectTo: BACK,
        browser: browser.cookie(base, 'auth_flow')!,
      },
      new Date(Date.now() + 300_000),
    );
    authorization.searchParams.set('state', later.state);
    authorization.searchParams.set('nonce', later.nonce);
    authorization.searchParams.set(
      'code_challenge',
      createHash('sha256').update(later.codeVerifier).digest('base64url'),
    );
    const back = await atProvider(browser, authorization.href, login, 'corp');
    const answer = await browser.request(back);
    expect(answer.headers.get('location')).toBe(`${BACK}?error=PROVIDER_ERROR`);
    expect(accessOf(browser)).toBe(aged);
  });

  it('refuses a step-up by another identity of the provider, and changes nothing', async () => {
    const signedIn = await providerAccount();
    const id = signedIn.id;
    // The same browser's service cookies, but no session at the provider: someone else signs in
    // there (the provider's own switch of accounts is a logout page no client follows here).
    const browser = new Browser();
    for (const name of ['access_token', 'refresh_token']) {
      browser.setCookie(base, name, signedIn.browser.cookie(base, name)!);
    }
    const aged = age(browser, 601);
    const { back } = await stepUpThroughProvider(
      browser,
      `stranger-${stamp()}:stranger-${stamp()}@corp.example:1`,
    );
    const answer = await browser.request(back);
    expect(answer.headers.get('location')).toBe(`${BACK}?error=IDENTITY_NOT_FOUND`);
    expect(accessOf(browser)).toBe(aged);
    expectRefused(await call(browser, 'DELETE', '/users/me', {}), 403, 'REAUTHENTICATION_REQUIRED');
    const audit = await t.dataSource.query<Array<{ type: string }>>(
      'SELECT type FROM audit_events WHERE user_id = ?',
      [id],
    );
    expect(audit.map((row) => row.type)).toContain('federation_failed');
    expect(audit.map((row) => row.type)).not.toContain('reauthenticated');
    // Nor did that round trip make the stranger an account.
    const strangers = await t.dataSource.query<unknown[]>(
      "SELECT id FROM users WHERE email LIKE 'stranger-%'",
    );
    expect(strangers).toEqual([]);
  });

  it('refuses a start a cross-site page made, one for a provider it has not linked, and one signed out', async () => {
    const { browser } = await providerAccount();
    const start = (provider: string, headers: Record<string, string>) =>
      browser.request(
        api(
          `/auth/reauthenticate/providers/${provider}/start?redirect_to=${encodeURIComponent(BACK)}`,
        ),
        { headers },
      );
    const status = async (answer: Response) => ({
      status: answer.status,
      error: ((await answer.json()) as { error: string }).error,
    });
    expect(await status(await start('corp', { 'sec-fetch-site': 'cross-site' }))).toEqual({
      status: 403,
      error: 'FORBIDDEN_ORIGIN',
    });
    expect(await status(await start('corp', { origin: 'https://evil.example.net' }))).toEqual({
      status: 403,
      error: 'FORBIDDEN_ORIGIN',
    });
    expect(await status(await start('other', { 'sec-fetch-site': 'same-site' }))).toEqual({
      status: 404,
      error: 'IDENTITY_NOT_FOUND',
    });
    expect(await status(await start('nope', { 'sec-fetch-site': 'same-site' }))).toEqual({
      status: 404,
      error: 'PROVIDER_NOT_FOUND',
    });
    const stranger = await new Browser().request(
      api(`/auth/reauthenticate/providers/corp/start?redirect_to=${encodeURIComponent(BACK)}`),
    );
    expect(stranger.status).toBe(401);
  });

  it('steps up with a code mailed to the account: amr otp, the same session', async () => {
    const { browser, email } = await providerAccount();
    const before = claimsOf(age(browser, 601));
    const asked = await call(browser, 'POST', '/auth/reauthenticate/email-code');
    expect(asked).toEqual({
      status: 200,
      body: { success: true, message: 'Code sent', data: { expires_in: 600 } },
    });
    const [mail] = await mailsTo(email);
    expect(mail.subject).toBe(CODE_SUBJECT);
    // No link: the code signs no one in.
    expect(mail.text).not.toMatch(/https?:/);
    const code = codeOf(mail);
    expect(code).toMatch(/^\d{6}$/);
    const wrong = code === '000000' ? '111111' : '000000';
    expectRefused(
      await call(browser, 'POST', '/auth/reauthenticate', { email_code: wrong }),
      401,
      'INVALID_MFA_CODE',
    );
    // A step-up's code is not a sign-in code.
    const signIn = await t
      .http()
      .post('/api/v1/auth/email-code/verify')
      .set('Origin', APP_ORIGIN)
      .send({ email, code });
    expect({ status: signIn.status, error: signIn.body.error }).toEqual({
      status: 401,
      error: 'LOGIN_FAILED',
    });
    const renewed = await call(browser, 'POST', '/auth/reauthenticate', { email_code: code });
    expect(renewed.status).toBe(200);
    expect(renewed.body.data.user.email).toBe(email);
    const after = claimsOf(accessOf(browser));
    expect(after).toMatchObject({ sid: before.sid, amr: ['otp'] });
    expect(after.auth_time).toBeGreaterThan(before.auth_time + 590);
    // Once only.
    expectRefused(
      await call(browser, 'POST', '/auth/reauthenticate', { email_code: code }),
      401,
      'INVALID_MFA_CODE',
    );
  });

  it('takes no sign-in code for a step-up', async () => {
    const owner = await registerUser(t, uniqueUser('signincode'));
    const browser = new Browser();
    const login = await browser.request(api('/auth/login'), {
      method: 'POST',
      headers: { origin: APP_ORIGIN, 'content-type': 'application/json' },
      body: JSON.stringify({ email: owner.credentials.email, password: PASSWORD }),
    });
    expect(login.status).toBe(200);
    await t
      .http()
      .post('/api/v1/auth/email-code')
      .send({ email: owner.credentials.email })
      .expect(200);
    const mail = (await mailsTo(owner.credentials.email)).pop()!;
    expect(mail.subject).toBe('Your sign-in code for Auth Service');
    expectRefused(
      await call(browser, 'POST', '/auth/reauthenticate', { email_code: codeOf(mail) }),
      401,
      'INVALID_MFA_CODE',
    );
  });

  it('steps up with one of its passkeys: amr hwk, user verification required', async () => {
    const { browser, id } = await providerAccount();
    const authenticator = new PasskeyAuthenticator(APP_ORIGIN);
    const creation = await call(browser, 'POST', '/users/me/passkeys/options');
    const registered = await call(browser, 'POST', '/users/me/passkeys', {
      response: authenticator.create(creation.body.data.options as CreationOptions),
    });
    expect(registered.status).toBe(201);
    const before = claimsOf(age(browser, 601));
    const begun = await call(browser, 'POST', '/auth/reauthenticate/passkey/options');
    expect(begun.status).toBe(200);
    const options = begun.body.data.options as RequestOptions & Record<string, unknown>;
    expect(options).toMatchObject({
      userVerification: 'required',
      allowCredentials: [expect.objectContaining({ id: authenticator.ids[0] })],
    });
    const renewed = await call(browser, 'POST', '/auth/reauthenticate', {
      passkey: authenticator.get(options),
    });
    expect(renewed.status).toBe(200);
    const after = claimsOf(accessOf(browser));
    expect(after).toMatchObject({ sid: before.sid, amr: ['hwk'] });
    expect(after.auth_time).toBeGreaterThan(before.auth_time + 590);
    // Its challenge was for this account: another account's passkey is refused with it.
    const other = await providerAccount();
    const again = await call(other.browser, 'POST', '/auth/reauthenticate/passkey/options');
    expectRefused(
      await call(other.browser, 'POST', '/auth/reauthenticate', {
        passkey: authenticator.get(again.body.data.options as RequestOptions),
      }),
      401,
      'INVALID_PASSKEY',
    );
    expect(
      (await call(browser, 'GET', '/users/me')).body.data.user.reauthentication_methods,
    ).toEqual(['passkey', 'identity_provider', 'email_code']);
    expect(id).toBe(before.sub);
  });

  it('has no password once a mailed code first proved the address, and sets one through the reset mail', async () => {
    const { credentials } = await registerUser(t, uniqueUser('codemade'));
    const email = credentials.email;
    await t.http().post('/api/v1/auth/email-code').send({ email }).expect(200);
    const browser = new Browser();
    const signedIn = await browser.request(api('/auth/email-code/verify'), {
      method: 'POST',
      headers: { origin: APP_ORIGIN, 'content-type': 'application/json' },
      body: JSON.stringify({ email, code: codeOf((await mailsTo(email)).pop()!) }),
    });
    expect(signedIn.status).toBe(200);
    expect((await call(browser, 'GET', '/users/me')).body.data.user).toMatchObject({
      email_verified: true,
      has_password: false,
      reauthentication_methods: ['email_code'],
    });
    // Its recent sign-in confirms a change, as for an account a provider made.
    const newEmail = `codemoved-${stamp()}@example.com`;
    expect((await call(browser, 'POST', '/users/me/email', { newEmail })).status).toBe(200);

    await t.http().post('/api/v1/auth/forgot-password').send({ email }).expect(200);
    const reset = (await mailsTo(email)).pop()!;
    await t
      .http()
      .post('/api/v1/auth/reset-password')
      .send({ token: reset.token, newPassword: 'a brand new secret' })
      .expect(200);
    const login = await t
      .http()
      .post('/api/v1/auth/login')
      .send({ email, password: 'a brand new secret' })
      .expect(200);
    const cookie = /access_token=([^;]+)/.exec(String(login.headers['set-cookie']))![1];
    const profile = await t
      .http()
      .get('/api/v1/users/me')
      .set('Authorization', `Bearer ${cookie}`)
      .expect(200);
    expect(profile.body.data.user).toMatchObject({
      has_password: true,
      reauthentication_methods: ['password', 'email_code'],
    });
  });

  it("steps up an sso_required domain's account through its provider only: no mailed code", async () => {
    const { browser, login } = await providerAccount('strict.example', 'strict');
    expect(
      (await call(browser, 'GET', '/users/me')).body.data.user.reauthentication_methods,
    ).toEqual(['identity_provider']);
    expectRefused(
      await call(browser, 'POST', '/auth/reauthenticate/email-code'),
      403,
      'SSO_REQUIRED',
    );
    const before = claimsOf(age(browser, 601));
    const { back } = await stepUpThroughProvider(browser, login, 'strict');
    expect((await browser.request(back)).headers.get('location')).toBe(BACK);
    expect(claimsOf(accessOf(browser))).toMatchObject({ sid: before.sid, amr: ['fed'] });
  });
});
