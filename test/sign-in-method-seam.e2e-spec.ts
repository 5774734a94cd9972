import * as jwt from 'jsonwebtoken';
import { Authenticator } from './support/authenticator';
import { LoggedIn, expectError, registerAndLogin, uniqueUser } from './support/auth-helpers';
import { CreationOptions, PasskeyAuthenticator } from './support/passkey-authenticator';
import { SignedHeaderKeys, SignedHeaderModule, signedFor } from './support/signed-header-way-in';
import { APP_ORIGIN, TestApp, startTestApp } from './support/test-app';

/**
 * Issue 34: a way in the core has never heard of (a toy: a signed header), registered in the
 * testing module beside AppModule, is a way in like the service's own: it signs in through the
 * core, its session's `amr` is the one it registered (joined with a second step's), it is listed
 * among the sign-in methods, and it counts for "never remove the last way in".
 */
describe('a way in of its own module, beside the service', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({}, { imports: [SignedHeaderModule] });
  });
  afterAll(() => t.close());

  const enrol = (user: LoggedIn) => t.app.get(SignedHeaderKeys).enrolled.add(user.user.id);
  const signIn = (header: string) =>
    t
      .http()
      .post('/api/v1/auth/signed-header')
      .set('X-Signed-User', header)
      .set('X-Token-Delivery', 'body');
  const as = (session: { access: string }) => ({
    get: (path: string) =>
      t.http().get(`/api/v1${path}`).set('Authorization', `Bearer ${session.access}`),
    post: (path: string, body?: object) =>
      t.http().post(`/api/v1${path}`).set('Authorization', `Bearer ${session.access}`).send(body),
    delete: (path: string) =>
      t.http().delete(`/api/v1${path}`).set('Authorization', `Bearer ${session.access}`),
  });
  const amrOf = (access: string) => (jwt.decode(access) as { amr?: string[] }).amr;

  it('is listed among the sign-in methods, after the service’s own', async () => {
    const answer = await t.http().get('/api/v1/auth/sign-in-methods').expect(200);
    expect(answer.body.data.methods).toEqual([
      'password',
      'passkey',
      'email_code',
      'signed_header',
    ]);
  });

  it('signs an enrolled user in, with the amr it registered, and refuses anyone else', async () => {
    const user = await registerAndLogin(t, uniqueUser('toy'));
    expectError(await signIn(signedFor(user.user.id)), 401, 'LOGIN_FAILED');
    enrol(user);
    expectError(await signIn(`${user.user.id}.forged`), 401, 'LOGIN_FAILED');

    const signedIn = await signIn(signedFor(user.user.id)).expect(200);
    expect(signedIn.body.user.id).toBe(user.user.id);
    expect(amrOf(signedIn.body.access_token as string)).toEqual(['pop']);
    // A session like any other: the profile answers, and the refresh token rotates.
    const session = { access: signedIn.body.access_token as string };
    expect((await as(session).get('/users/me').expect(200)).body.data.user.id).toBe(user.user.id);
    const audit = await t.dataSource.query<Array<{ type: string }>>(
      'SELECT type FROM audit_events WHERE user_id = ? ORDER BY created_at',
      [user.user.id],
    );
    expect(audit.map((row) => row.type)).toContain('login_succeeded');
  });

  it('hands over to the second step, whose amr joins its own', async () => {
    const user = await registerAndLogin(t, uniqueUser('toy2fa'));
    const begun = await as(user).post('/users/me/mfa/totp').expect(200);
    const app = new Authenticator(begun.body.data.secret as string);
    await as(user)
      .post('/users/me/mfa/totp/confirm', { code: await app.code() })
      .expect(200);
    enrol(user);

    const first = await signIn(signedFor(user.user.id)).expect(200);
    expect(first.body.data).toMatchObject({
      mfa_required: true,
      methods: ['totp', 'recovery_code'],
    });
    const second = await t
      .http()
      .post('/api/v1/auth/mfa/verify')
      .set('X-Token-Delivery', 'body')
      .send({ challenge: first.body.data.challenge as string, code: await app.code() })
      .expect(200);
    expect(amrOf(second.body.access_token as string)).toEqual(['pop', 'otp']);
  });

  it('counts as a way in: the last passkey of an account without a password may go', async () => {
    const withPasskey = async () => {
      const user = await registerAndLogin(t, uniqueUser('toylast'));
      const begun = await as(user).post('/users/me/passkeys/options').expect(200);
      const response = new PasskeyAuthenticator(APP_ORIGIN).create(
        begun.body.data.options as CreationOptions,
      );
      const added = await as(user).post('/users/me/passkeys', { response }).expect(201);
      // An account without a password, as an identity provider's would be.
      await t.dataSource.query("UPDATE users SET password_hash = '' WHERE id = ?", [user.user.id]);
      return { ...user, passkey: added.body.data.passkey.id as string };
    };
    const alone = await withPasskey();
    expectError(
      await as(alone).delete(`/users/me/passkeys/${alone.passkey}`),
      409,
      'LAST_SIGN_IN_METHOD',
    );

    const enrolled = await withPasskey();
    enrol(enrolled);
    await as(enrolled).delete(`/users/me/passkeys/${enrolled.passkey}`).expect(200);
    expect((await as(enrolled).get('/users/me/passkeys').expect(200)).body.data.passkeys).toEqual(
      [],
    );
  });
});
