import * as jwt from 'jsonwebtoken';
import { Response } from 'supertest';
import { Metrics } from '../src/metrics/metrics.service';
import { CHALLENGE_TTL_MS, WebAuthnChallenges } from '../src/passkeys/webauthn-challenges.service';
import { accessClaims, signAccess } from './support/access-tokens';
import { Authenticator } from './support/authenticator';
import {
  LoggedIn,
  PASSWORD,
  cookiesOf,
  expectError,
  registerAndLogin,
  uniqueUser,
} from './support/auth-helpers';
import {
  CreationOptions,
  PasskeyAuthenticator,
  RequestOptions,
} from './support/passkey-authenticator';
import { APP_ORIGIN, TestApp, startTestApp } from './support/test-app';

type Json = Record<string, unknown>;

/**
 * Issue 25: passkeys through HTTP, with a software authenticator answering as a browser and a
 * platform authenticator would: registration, passwordless sign-in, the second step after a
 * password, and what each refuses (a used or expired challenge, a foreign page, a counter that
 * went back, another account's passkey).
 */
describe('passkeys', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ METRICS_TOKEN: 'passkeys-metrics-token-0123456789abcdef' });
  });
  afterAll(() => t.close());

  const as = (session: { access: string }) => ({
    get: (path: string) =>
      t.http().get(`/api/v1${path}`).set('Authorization', `Bearer ${session.access}`),
    post: (path: string, body?: object) =>
      t.http().post(`/api/v1${path}`).set('Authorization', `Bearer ${session.access}`).send(body),
    patch: (path: string, body?: object) =>
      t.http().patch(`/api/v1${path}`).set('Authorization', `Bearer ${session.access}`).send(body),
    delete: (path: string) =>
      t.http().delete(`/api/v1${path}`).set('Authorization', `Bearer ${session.access}`),
  });
  const post = (path: string, body?: object) =>
    t.http().post(`/api/v1${path}`).set('Origin', APP_ORIGIN).send(body);
  const claimsOf = (access: string) => jwt.decode(access) as Record<string, unknown>;
  const auditOf = async (userId: string) =>
    (
      await t.dataSource.query<Array<{ type: string }>>(
        'SELECT type FROM audit_events WHERE user_id = ? ORDER BY created_at',
        [userId],
      )
    ).map((row) => row.type);
  const counted = async (ceremony: string, outcome: string) => {
    const metric = await t.app
      .get(Metrics)
      .registry.getSingleMetric('auth_passkey_ceremonies_total')!
      .get();
    return metric.values.find(
      (value) => value.labels.ceremony === ceremony && value.labels.outcome === outcome,
    )?.value;
  };

  async function withPasskey(
    authenticator = new PasskeyAuthenticator(APP_ORIGIN),
    session?: LoggedIn,
  ) {
    const signedIn = session ?? (await registerAndLogin(t, uniqueUser('passkey')));
    const begun = await as(signedIn).post('/users/me/passkeys/options').expect(200);
    const response = authenticator.create(begun.body.data.options as CreationOptions);
    const registered = await as(signedIn)
      .post('/users/me/passkeys', { response, name: '  Laptop  ' })
      .expect(201);
    return { ...signedIn, authenticator, passkey: registered.body.data.passkey as Json };
  }

  async function signIn(authenticator: PasskeyAuthenticator, ceremony = {}): Promise<Response> {
    const begun = await post('/auth/passkey/options').expect(200);
    const response = authenticator.get(begun.body.data.options as RequestOptions, ceremony);
    return post('/auth/passkey/verify', { response });
  }
  /** A sign-in that must pass. */
  async function signedIn(authenticator: PasskeyAuthenticator): Promise<Response> {
    const response = await signIn(authenticator);
    expect({ status: response.status, error: response.body.error }).toEqual({
      status: 200,
      error: undefined,
    });
    return response;
  }

  it('registers a passkey: options for this relying party, the answer checked, named', async () => {
    const session = await registerAndLogin(t, uniqueUser('register'));
    const begun = await as(session).post('/users/me/passkeys/options').expect(200);
    const options = begun.body.data.options as Json;
    expect(options).toMatchObject({
      rp: { id: 'localhost', name: 'Auth Service' },
      user: { name: session.credentials.email, displayName: session.credentials.username },
      attestation: 'none',
      authenticatorSelection: { residentKey: 'required', requireResidentKey: true },
      excludeCredentials: [],
    });
    expect(options.challenge).toMatch(/^[\w-]{43}$/);

    const authenticator = new PasskeyAuthenticator(APP_ORIGIN);
    const response = authenticator.create(options as unknown as CreationOptions);
    const registered = await as(session)
      .post('/users/me/passkeys', { response, name: ' Laptop ' })
      .expect(201);
    const passkey = registered.body.data.passkey as Json;
    expect(passkey).toEqual({
      id: expect.stringMatching(/^pk_[0-9a-f]{20}$/),
      name: 'Laptop',
      created_at: expect.any(String),
      last_used_at: null,
    });
    expect((await as(session).get('/users/me/passkeys').expect(200)).body.data).toEqual({
      passkeys: [passkey],
    });
    // The next registration leaves this authenticator out, and answering twice is refused.
    const again = await as(session).post('/users/me/passkeys/options').expect(200);
    expect(again.body.data.options.excludeCredentials).toEqual([
      expect.objectContaining({ id: authenticator.ids[0] }),
    ]);
    expectError(await as(session).post('/users/me/passkeys', { response }), 401, 'INVALID_PASSKEY');
    expect(await auditOf(session.user.id)).toEqual(
      expect.arrayContaining(['passkey_registered', 'passkey_failed']),
    );
  });

  it('needs a recent sign-in to register, and refuses a foreign page or an expired challenge', async () => {
    const session = await registerAndLogin(t, uniqueUser('recent'));
    const old = signAccess({
      ...accessClaims(session),
      auth_time: Math.floor(Date.now() / 1000) - 3600,
      amr: ['pwd'],
      client_id: 'auth-service',
    });
    expectError(
      await as({ access: old }).post('/users/me/passkeys/options'),
      403,
      'REAUTHENTICATION_REQUIRED',
    );
    const foreign = new PasskeyAuthenticator('https://evil.example.net');
    const begun = await as(session).post('/users/me/passkeys/options').expect(200);
    expectError(
      await as(session).post('/users/me/passkeys', {
        response: foreign.create(begun.body.data.options as CreationOptions),
      }),
      401,
      'INVALID_PASSKEY',
    );
    const late = await as(session).post('/users/me/passkeys/options').expect(200);
    const challenges = t.app.get(WebAuthnChallenges);
    const answered = (challenge: string) =>
      as(session).post('/users/me/passkeys', {
        response: new PasskeyAuthenticator(APP_ORIGIN).create({
          ...(late.body.data.options as CreationOptions),
          challenge,
        }),
      });
    // One this service issued for this account, five minutes and more ago; one issued for
    // another account, one for another ceremony, and one it never issued.
    const issuedLongAgo = new Date(Date.now() - CHALLENGE_TTL_MS - 1000);
    const other = await registerAndLogin(t, uniqueUser('other'));
    for (const challenge of [
      challenges.issue('registration', session.user.id, issuedLongAgo),
      challenges.issue('registration', other.user.id),
      challenges.issue('sign_in', null),
      Buffer.alloc(32, 7).toString('base64url'),
    ]) {
      expectError(await answered(challenge), 401, 'INVALID_PASSKEY');
    }
    // The options' own challenge is still open: none of those used it up.
    expect((await answered(late.body.data.options.challenge as string)).status).toBe(201);
  });

  it('checks the recent sign-in again when the registration finishes, not only when it begins', async () => {
    const session = await registerAndLogin(t, uniqueUser('lateregister'));
    const begun = await as(session).post('/users/me/passkeys/options').expect(200);
    const response = new PasskeyAuthenticator(APP_ORIGIN).create(
      begun.body.data.options as CreationOptions,
    );
    // The same session, its sign-in now past STEP_UP_MAX_AGE (the ceremony took its time).
    const later = signAccess({
      ...accessClaims(session),
      auth_time: Math.floor(Date.now() / 1000) - 601,
      amr: ['pwd'],
      client_id: 'auth-service',
    });
    expectError(
      await as({ access: later }).post('/users/me/passkeys', { response }),
      403,
      'REAUTHENTICATION_REQUIRED',
    );
    expect((await as(session).get('/users/me/passkeys').expect(200)).body.data.passkeys).toEqual(
      [],
    );
    expect(await auditOf(session.user.id)).not.toContain('passkey_registered');
  });

  it('signs in with a passkey alone, as login does: cookies, or the tokens with amr hwk', async () => {
    const user = await withPasskey();
    const answer = await signedIn(user.authenticator);
    expect(answer.body.data.user.id).toBe(user.user.id);
    const cookies = cookiesOf(answer);
    expect(claimsOf(cookies.access_token.value)).toMatchObject({
      sub: user.user.id,
      amr: ['hwk'],
      auth_time: expect.any(Number),
    });
    const begun = await t.http().post('/api/v1/auth/passkey/options').expect(200);
    expect(begun.body.data.options).toMatchObject({
      rpId: 'localhost',
      userVerification: 'required',
      allowCredentials: [],
    });
    const bare = await t
      .http()
      .post('/api/v1/auth/passkey/verify')
      .set('X-Token-Delivery', 'body')
      .send({ response: user.authenticator.get(begun.body.data.options as RequestOptions) })
      .expect(200);
    expect(bare.body).toMatchObject({ token_type: 'Bearer', expires_in: 900 });
    expect(claimsOf(bare.body.access_token as string).amr).toEqual(['hwk']);
    const listed = await as(user).get('/users/me/passkeys').expect(200);
    expect(listed.body.data.passkeys[0].last_used_at).toEqual(expect.any(String));
  });

  it('says swk for a passkey synced between devices', async () => {
    const user = await withPasskey(new PasskeyAuthenticator(APP_ORIGIN, true));
    const answer = await signedIn(user.authenticator);
    expect(claimsOf(cookiesOf(answer).access_token.value).amr).toEqual(['swk']);
  });

  it('refuses every faulty sign-in alike: 401 INVALID_PASSKEY', async () => {
    const user = await withPasskey();
    const stranger = new PasskeyAuthenticator(APP_ORIGIN);
    stranger.create({
      challenge: 'x',
      rp: { id: 'localhost', name: 'x' },
      user: { id: 'dXNlcl8x', name: 'x', displayName: 'x' },
    });
    const begun = await post('/auth/passkey/options').expect(200);
    const options = begun.body.data.options as RequestOptions;
    const answer = user.authenticator.get(options);
    const tampered = JSON.parse(JSON.stringify(answer)) as { response: Json };
    tampered.response.signature = Buffer.alloc(70, 1).toString('base64url');
    for (const response of [
      await signIn(stranger),
      await signIn(user.authenticator, { userVerified: false }),
      await signIn(user.authenticator, { origin: 'https://evil.example.net' }),
      await post('/auth/passkey/verify', { response: tampered }),
      await post('/auth/passkey/verify', { response: answer }),
      // Its challenge was used by the tampered answer: single use, right or wrong.
    ]) {
      expectError(response, 401, 'INVALID_PASSKEY');
      // The catalogue's words, never the library's reason.
      expect(response.body.message).toBe(
        'The passkey could not be verified: try again, or sign in another way',
      );
    }
    expect(await counted('sign_in', 'failed')).toBeGreaterThanOrEqual(5);
  });

  it('refuses a counter that went back, and audits it as a possible clone', async () => {
    const user = await withPasskey();
    await signedIn(user.authenticator);
    await signedIn(user.authenticator);
    const before = (await counted('sign_in', 'counter_rejected')) ?? 0;
    expectError(await signIn(user.authenticator, { counter: 1 }), 401, 'INVALID_PASSKEY');
    expect(await auditOf(user.user.id)).toContain('passkey_counter_rejected');
    expect(await counted('sign_in', 'counter_rejected')).toBe(before + 1);
  });

  it('is the second step after a password: methods, options for the challenge, amr pwd hwk mfa', async () => {
    const user = await withPasskey();
    const step = await post('/auth/login', {
      email: user.credentials.email,
      password: PASSWORD,
    }).expect(200);
    expect(step.body.data).toEqual({
      mfa_required: true,
      challenge: expect.any(String),
      methods: ['passkey'],
    });
    expect(cookiesOf(step)).toEqual({});
    const challenge = step.body.data.challenge as string;
    expectError(
      await post('/auth/mfa/passkey/options', { challenge: 'nope' }),
      401,
      'INVALID_TOKEN',
    );
    const begun = await post('/auth/mfa/passkey/options', { challenge }).expect(200);
    expect(begun.body.data.options).toMatchObject({
      userVerification: 'preferred',
      allowCredentials: [expect.objectContaining({ id: user.authenticator.ids[0] })],
    });
    // Another account's passkey does not answer this account's second step.
    const other = await withPasskey();
    expectError(
      await post('/auth/mfa/verify', {
        challenge,
        passkey: other.authenticator.get({
          challenge: begun.body.data.options.challenge as string,
        }),
      }),
      401,
      'INVALID_PASSKEY',
    );
    const again = await post('/auth/mfa/passkey/options', { challenge }).expect(200);
    const verified = await post('/auth/mfa/verify', {
      challenge,
      passkey: user.authenticator.get(again.body.data.options as RequestOptions),
    }).expect(200);
    expect(claimsOf(cookiesOf(verified).access_token.value).amr).toEqual(['pwd', 'hwk', 'mfa']);
    // The login's challenge is used up with it.
    expectError(await post('/auth/mfa/passkey/options', { challenge }), 401, 'INVALID_TOKEN');
  });

  it('is offered first beside an authenticator app', async () => {
    const user = await withPasskey();
    const begun = await as(user).post('/users/me/mfa/totp').expect(200);
    const app = new Authenticator(begun.body.data.secret as string);
    await as(user)
      .post('/users/me/mfa/totp/confirm', { code: await app.code() })
      .expect(200);
    const step = await post('/auth/login', {
      email: user.credentials.email,
      password: PASSWORD,
    }).expect(200);
    expect(step.body.data.methods).toEqual(['passkey', 'totp', 'recovery_code']);
    expectError(
      await post('/auth/mfa/verify', {
        challenge: step.body.data.challenge,
        code: '123456',
        passkey: {},
      }),
      400,
      'VALIDATION_ERROR',
    );
  });

  it('renames and removes only the user’s own passkeys; the last way in stays', async () => {
    const user = await withPasskey();
    const other = await withPasskey();
    const id = user.passkey.id as string;
    expectError(
      await as(other).patch(`/users/me/passkeys/${id}`, { name: 'Mine' }),
      404,
      'PASSKEY_NOT_FOUND',
    );
    expectError(await as(other).delete(`/users/me/passkeys/${id}`), 404, 'PASSKEY_NOT_FOUND');
    expectError(await as(user).delete('/users/me/passkeys/pk_unknown'), 404, 'PASSKEY_NOT_FOUND');
    expectError(
      await as(user).patch(`/users/me/passkeys/${id}`, { name: '   ' }),
      400,
      'VALIDATION_ERROR',
    );
    const renamed = await as(user)
      .patch(`/users/me/passkeys/${id}`, { name: 'Yubikey 5 ✓' })
      .expect(200);
    expect(renamed.body.data.passkey).toMatchObject({ id, name: 'Yubikey 5 ✓' });

    // An account without a password (as an identity provider's would be) keeps its last passkey.
    await t.dataSource.query("UPDATE users SET password_hash = '' WHERE id = ?", [other.user.id]);
    expectError(
      await as(other).delete(`/users/me/passkeys/${other.passkey.id as string}`),
      409,
      'LAST_SIGN_IN_METHOD',
    );

    // Removing a factor takes a recent sign-in, as switching the authenticator app off does.
    const stale = signAccess({
      ...accessClaims(user),
      auth_time: Math.floor(Date.now() / 1000) - 3600,
      amr: ['pwd', 'hwk', 'mfa'],
      client_id: 'auth-service',
    });
    expectError(
      await as({ access: stale }).delete(`/users/me/passkeys/${id}`),
      403,
      'REAUTHENTICATION_REQUIRED',
    );
    expect((await as(user).get('/users/me/passkeys').expect(200)).body.data.passkeys).toHaveLength(
      1,
    );

    await as(user).delete(`/users/me/passkeys/${id}`).expect(200);
    expect((await as(user).get('/users/me/passkeys').expect(200)).body.data.passkeys).toEqual([]);
    expectError(await signIn(user.authenticator), 401, 'INVALID_PASSKEY');
    // No passkey left: a password login needs no second step again.
    const login = await post('/auth/login', { email: user.credentials.email, password: PASSWORD });
    expect(login.body.data.user.id).toBe(user.user.id);
    expect(await auditOf(user.user.id)).toEqual(
      expect.arrayContaining(['passkey_renamed', 'passkey_deleted']),
    );
  });

  it('goes with its account', async () => {
    const user = await withPasskey();
    await as(user).delete('/users/me').send({ password: PASSWORD }).expect(200);
    const [row] = await t.dataSource.query<Array<{ count: number | string }>>(
      'SELECT COUNT(*) AS count FROM passkeys WHERE user_id = ?',
      [user.user.id],
    );
    expect(Number(row.count)).toBe(0);
    expectError(await signIn(user.authenticator), 401, 'INVALID_PASSKEY');
  });

  it('counts ceremonies by outcome, every series there from the start', async () => {
    const text = await t.app.get(Metrics).registry.metrics();
    for (const ceremony of ['registration', 'sign_in', 'second_factor']) {
      for (const outcome of ['ok', 'failed', 'counter_rejected']) {
        expect(text).toContain(
          `auth_passkey_ceremonies_total{ceremony="${ceremony}",outcome="${outcome}"}`,
        );
      }
    }
    expect(await counted('registration', 'ok')).toBeGreaterThan(0);
  });
});
