import * as jwt from 'jsonwebtoken';
import { Response } from 'supertest';
import { UserDirectory } from '../src/users/user-directory.service';
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
import { APP_ORIGIN, TestApp, startTestApp } from './support/test-app';

interface Enrolled extends LoggedIn {
  app: Authenticator;
  recoveryCodes: string[];
}

/**
 * Issue 24: a second factor (TOTP, recovery codes), the login's second step, and step-up. Codes
 * are computed from the enrolled secret as an authenticator app would.
 */
describe('the second factor', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  const as = (session: { access: string }) => ({
    get: (path: string) =>
      t.http().get(`/api/v1${path}`).set('Authorization', `Bearer ${session.access}`),
    post: (path: string, body?: object) =>
      t.http().post(`/api/v1${path}`).set('Authorization', `Bearer ${session.access}`).send(body),
    delete: (path: string, body?: object) =>
      t.http().delete(`/api/v1${path}`).set('Authorization', `Bearer ${session.access}`).send(body),
  });
  const passwordLogin = (email: string, password = PASSWORD) =>
    t.http().post('/api/v1/auth/login').set('Origin', APP_ORIGIN).send({ email, password });
  const verify = (body: object) =>
    t.http().post('/api/v1/auth/mfa/verify').set('Origin', APP_ORIGIN).send(body);
  const mailsTo = async (email: string) =>
    (await t.outbox()).filter((mail) => mail.to === email).map((mail) => mail.subject);

  async function enrol(session = uniqueUser('mfa')): Promise<Enrolled> {
    const signedIn = await registerAndLogin(t, session);
    const begun = await as(signedIn).post('/users/me/mfa/totp').expect(200);
    const app = new Authenticator(begun.body.data.secret as string);
    const confirmed = await as(signedIn)
      .post('/users/me/mfa/totp/confirm', { code: await app.code() })
      .expect(200);
    return { ...signedIn, app, recoveryCodes: confirmed.body.data.recovery_codes as string[] };
  }

  async function challengeOf(email: string): Promise<string> {
    const step = await passwordLogin(email).expect(200);
    return step.body.data.challenge as string;
  }

  it('enrols: a pending secret with its URI and QR code, switched on by a first code', async () => {
    const session = await registerAndLogin(t, uniqueUser('enrol'));
    expect((await as(session).get('/users/me/mfa').expect(200)).body.data).toEqual({
      totp: false,
      recovery_codes_left: 0,
    });
    const begun = await as(session).post('/users/me/mfa/totp').expect(200);
    const { secret, otpauth_url: uri, qr_svg: qr } = begun.body.data as Record<string, string>;
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(new URL(uri)).toMatchObject({ protocol: 'otpauth:', host: 'totp' });
    expect(new URL(uri).searchParams.get('issuer')).toBe('Auth Service');
    expect(new URL(uri).searchParams.get('algorithm')).toBe('SHA1');
    expect(new URL(uri).searchParams.get('digits')).toBe('6');
    expect(new URL(uri).searchParams.get('period')).toBe('30');
    expect(decodeURIComponent(new URL(uri).pathname)).toContain(session.credentials.email);
    expect(Buffer.from(qr.split(',')[1], 'base64').toString()).toMatch(/^<svg /);
    // Still off until a code confirms it: a login needs no second step yet.
    expect(
      (await passwordLogin(session.credentials.email).expect(200)).body.data.user,
    ).toBeTruthy();
    // Sealed at rest: the database holds no secret in clear.
    const [row] = await t.dataSource.query<Array<{ sealed: string }>>(
      'SELECT pending_secret AS sealed FROM user_mfa WHERE user_id = ?',
      [session.user.id],
    );
    expect(row.sealed).toMatch(/^v1\./);
    expect(row.sealed).not.toContain(secret);

    const app = new Authenticator(secret);
    expectError(
      await as(session).post('/users/me/mfa/totp/confirm', { code: '000000' }),
      401,
      'INVALID_MFA_CODE',
    );
    const confirmed = await as(session)
      .post('/users/me/mfa/totp/confirm', { code: await app.code() })
      .expect(200);
    const codes = confirmed.body.data.recovery_codes as string[];
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    expect((await as(session).get('/users/me/mfa').expect(200)).body.data).toEqual({
      totp: true,
      recovery_codes_left: 10,
    });
    expect(await mailsTo(session.credentials.email)).toContain(
      'Two-step sign-in is now on for your Auth Service account',
    );
  });

  it('asks for the second step after the password: no cookies, no tokens, whatever the client asks', async () => {
    const user = await enrol();
    for (const response of [
      await passwordLogin(user.credentials.email).expect(200),
      await t
        .http()
        .post('/api/v1/auth/login')
        .set('X-Token-Delivery', 'body')
        .send({ email: user.credentials.email, password: PASSWORD })
        .expect(200),
    ]) {
      expect(response.body).toEqual({
        success: true,
        message: 'Second factor required',
        data: {
          mfa_required: true,
          challenge: expect.any(String),
          methods: ['totp', 'recovery_code'],
        },
      });
      expect(response.headers['set-cookie']).toBeUndefined();
    }
  });

  it('starts the session with a code: the login answer, amr pwd and otp, and the code works once', async () => {
    const user = await enrol();
    const challenge = await challengeOf(user.credentials.email);
    const code = await user.app.code();
    const signedIn = await verify({ challenge, code }).expect(200);
    expect(signedIn.body).toMatchObject({
      success: true,
      message: 'Login successful',
      data: { user: { id: user.user.id } },
    });
    const cookies = cookiesOf(signedIn);
    expect(jwt.decode(cookies.access_token.value)).toMatchObject({ amr: ['pwd', 'otp'] });
    await as({ access: cookies.access_token.value }).get('/users/me').expect(200);
    // The challenge was used, and the code too (on another challenge).
    expectError(await verify({ challenge, code }), 401, 'INVALID_TOKEN');
    const again = await challengeOf(user.credentials.email);
    expectError(await verify({ challenge: again, code }), 401, 'INVALID_MFA_CODE');
    // Body tokens for a non-browser client, as login gives them.
    const tokens = await t
      .http()
      .post('/api/v1/auth/mfa/verify')
      .set('X-Token-Delivery', 'body')
      .send({ challenge: again, code: await user.app.code() })
      .expect(200);
    expect(tokens.body.access_token).toEqual(expect.any(String));
  });

  it('takes each recovery code once, and mails about its use', async () => {
    const user = await enrol();
    const [first] = user.recoveryCodes;
    const typed = first.toLowerCase().replace('-', '');
    await verify({
      challenge: await challengeOf(user.credentials.email),
      recovery_code: typed,
    }).expect(200);
    expectError(
      await verify({ challenge: await challengeOf(user.credentials.email), recovery_code: first }),
      401,
      'INVALID_MFA_CODE',
    );
    const session = {
      access: cookiesOf(
        await verify({
          challenge: await challengeOf(user.credentials.email),
          recovery_code: user.recoveryCodes[1],
        }).expect(200),
      ).access_token.value,
    };
    expect((await as(session).get('/users/me/mfa').expect(200)).body.data.recovery_codes_left).toBe(
      8,
    );
    expect(await mailsTo(user.credentials.email)).toContain(
      'A recovery code was used to sign in to your Auth Service account',
    );
  });

  it('refuses an unknown, malformed or expired challenge, and a body with two answers or none', async () => {
    const user = await enrol();
    const code = '123456';
    expectError(await verify({ challenge: 'nope', code }), 401, 'INVALID_TOKEN');
    const challenge = await challengeOf(user.credentials.email);
    await t.dataSource.query('UPDATE mfa_challenges SET expires_at = ? WHERE user_id = ?', [
      t.database.kind === 'mysql' ? new Date(Date.now() - 1000) : '2000-01-01 00:00:00.000',
      user.user.id,
    ]);
    expectError(await verify({ challenge, code: await user.app.code() }), 401, 'INVALID_TOKEN');
    const fresh = await challengeOf(user.credentials.email);
    for (const body of [
      { challenge: fresh },
      { challenge: fresh, code, recovery_code: 'ABCDE-FGHJK' },
    ]) {
      const response = await verify(body);
      expectError(response, 400, 'VALIDATION_ERROR');
      expect(response.body.details).toEqual(
        expect.arrayContaining([expect.objectContaining({ field: 'code' })]),
      );
    }
    expectError(await verify({ challenge: fresh, code: '12345' }), 400, 'VALIDATION_ERROR');
  });

  it("counts wrong codes towards the account's slow-down", async () => {
    const user = await enrol();
    const challenge = await challengeOf(user.credentials.email);
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 8; attempt++) {
      statuses.push((await verify({ challenge, code: '000000' })).status);
    }
    expect(statuses.slice(0, 3)).toEqual([401, 401, 401]);
    const limited = await verify({ challenge, code: '000000' });
    expectError(limited, 429, 'RATE_LIMITED');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('voids a pending challenge when a logout (or a password reset) bumps the token version', async () => {
    const user = await enrol();
    const challenge = await challengeOf(user.credentials.email);
    await as(user).post('/auth/logout').expect(200);
    expectError(await verify({ challenge, code: await user.app.code() }), 401, 'INVALID_TOKEN');
  });

  describe('step-up', () => {
    /** The session's access token as it was signed `minutes` ago. */
    const aged = (session: LoggedIn, minutes: number) => {
      const now = Math.floor(Date.now() / 1000);
      return signAccess({
        ...accessClaims(session),
        auth_time: now - minutes * 60,
        amr: ['pwd'],
        client_id: 'auth-service',
      });
    };

    it('asks a session signed in over STEP_UP_MAX_AGE ago to authenticate again, then lets it', async () => {
      const session = await registerAndLogin(t, uniqueUser('stepup'));
      const old = { access: aged(session, 11) };
      expectError(await as(old).post('/users/me/mfa/totp'), 403, 'REAUTHENTICATION_REQUIRED');
      // A recent one passes; reading needs no recent sign-in.
      await as({ access: aged(session, 9) })
        .post('/users/me/mfa/totp')
        .expect(200);
      await as(old).get('/users/me/mfa').expect(200);

      expectError(
        await as(old).post('/auth/reauthenticate', { password: 'wrong password' }),
        403,
        'INVALID_PASSWORD',
      );
      const renewed = await t
        .http()
        .post('/api/v1/auth/reauthenticate')
        .set('Authorization', `Bearer ${old.access}`)
        .set('X-Token-Delivery', 'body')
        .send({ password: PASSWORD })
        .expect(200);
      const claims = jwt.decode(renewed.body.access_token as string) as Record<string, unknown>;
      expect(claims).toMatchObject({
        sid: (jwt.decode(session.access) as { sid: string }).sid,
        amr: ['pwd'],
      });
      expect(Math.abs((claims.auth_time as number) - Date.now() / 1000)).toBeLessThan(5);
      await as({ access: renewed.body.access_token as string })
        .post('/users/me/mfa/totp')
        .expect(200);
      // The new refresh token goes on refreshing the same session.
      await t
        .http()
        .post('/api/v1/auth/refresh')
        .set('Cookie', `refresh_token=${renewed.body.refresh_token as string}`)
        .expect(200);
    });

    it("rotates the browser's refresh cookie when it comes along, and takes a code too", async () => {
      const user = await enrol();
      const signedIn = cookiesOf(
        await verify({
          challenge: await challengeOf(user.credentials.email),
          code: await user.app.code(),
        }).expect(200),
      );
      const renewed = await t
        .http()
        .post('/api/v1/auth/reauthenticate')
        .set('Origin', APP_ORIGIN)
        .set(
          'Cookie',
          `access_token=${signedIn.access_token.value}; refresh_token=${signedIn.refresh_token.value}`,
        )
        .send({ code: await user.app.code() })
        .expect(200);
      const cookies = cookiesOf(renewed);
      // The code is a second factor on top of the session's first step, as at login: never
      // `otp` alone, which is a mailed code's.
      expect(jwt.decode(cookies.access_token.value)).toMatchObject({ amr: ['pwd', 'otp'] });
      // The old refresh cookie was rotated: inside the grace window it gets the new one's chain.
      await t
        .http()
        .post('/api/v1/auth/refresh')
        .set('Cookie', `refresh_token=${cookies.refresh_token.value}`)
        .expect(200);
    });

    it('guards every admin route, switching the factor off and new recovery codes', async () => {
      const admin = await enrol(uniqueUser('stepadmin'));
      await t.app.get(UserDirectory).setRole(admin.user.id, 'admin');
      const old = { access: aged(admin, 30) };
      for (const response of [
        await as(old).get('/admin/users'),
        await as(old).post('/users/me/mfa/recovery-codes'),
        await as(old).delete('/users/me/mfa/totp', { password: PASSWORD }),
      ]) {
        expectError(response, 403, 'REAUTHENTICATION_REQUIRED');
      }
    });
  });

  it('switches off with a code or the password, voiding the recovery codes, and mails', async () => {
    const user = await enrol();
    const fresh = await registerAndLogin(t, uniqueUser('other'));
    expect(fresh).toBeTruthy();
    const renewed = await as(user).post('/users/me/mfa/recovery-codes').expect(200);
    expect(renewed.body.data.recovery_codes).toHaveLength(10);
    expect(renewed.body.data.recovery_codes).not.toEqual(user.recoveryCodes);
    expectError(
      await verify({
        challenge: await challengeOf(user.credentials.email),
        recovery_code: user.recoveryCodes[0],
      }),
      401,
      'INVALID_MFA_CODE',
    );
    expectError(
      await as(user).delete('/users/me/mfa/totp', { code: '000000' }),
      401,
      'INVALID_MFA_CODE',
    );
    await as(user)
      .delete('/users/me/mfa/totp', { code: await user.app.code() })
      .expect(200);
    expect((await passwordLogin(user.credentials.email).expect(200)).body.data.user).toBeTruthy();
    expect(await mailsTo(user.credentials.email)).toContain(
      'Two-step sign-in was switched off for your Auth Service account',
    );
  });

  it('lets an administrator see it and reset it, on record', async () => {
    const admin = await registerAndLogin(t, uniqueUser('mfaadmin'));
    await t.app.get(UserDirectory).setRole(admin.user.id, 'admin');
    const user = await enrol();
    const seen = await as(admin).get(`/admin/users/${user.user.id}`).expect(200);
    expect(seen.body.data.user.two_factor).toBe(true);
    const reset = await as(admin).delete(`/admin/users/${user.user.id}/mfa`).expect(200);
    expect(reset.body.data.user.two_factor).toBe(false);
    expect((await passwordLogin(user.credentials.email).expect(200)).body.data.user).toBeTruthy();
    const [event] = await t.dataSource.query<Array<{ actor: string }>>(
      "SELECT actor_id AS actor FROM audit_events WHERE user_id = ? AND type = 'mfa_disabled'",
      [user.user.id],
    );
    expect(event.actor).toBe(admin.user.id);
  });
});

describe('MFA_REQUIRED_ROLES', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ MFA_REQUIRED_ROLES: 'admin' });
  });
  afterAll(() => t.close());

  const withBearer = <R extends { set(name: string, value: string): R }>(
    request: R,
    access: string,
  ) => request.set('Authorization', `Bearer ${access}`);
  /** POST /auth/reauthenticate with the body tokens: the new access token. */
  const reauthenticate = async (access: string, proof: object) => {
    const renewed = await withBearer(t.http().post('/api/v1/auth/reauthenticate'), access)
      .set('X-Token-Delivery', 'body')
      .send(proof)
      .expect(200);
    return renewed.body.access_token as string;
  };

  /** An administrator who switched the authenticator app on with their password-only token. */
  async function enrolledAdmin() {
    const admin = await registerAndLogin(t, uniqueUser('roleadmin'));
    await t.app.get(UserDirectory).setRole(admin.user.id, 'admin');
    const begun = await withBearer(t.http().post('/api/v1/users/me/mfa/totp'), admin.access);
    const app = new Authenticator(begun.body.data.secret as string);
    await withBearer(t.http().post('/api/v1/users/me/mfa/totp/confirm'), admin.access)
      .send({ code: await app.code() })
      .expect(200);
    return { ...admin, app };
  }

  it('refuses a token that shows no second factor, whatever the account has since; profile, enrolment and logout stay open', async () => {
    const admin = await enrolledAdmin();
    for (const path of ['/api/v1/admin/users', '/api/v1/users/me/sessions']) {
      expectError(
        await withBearer(t.http().get(path), admin.access),
        403,
        'SECOND_FACTOR_REQUIRED',
      );
    }
    await withBearer(t.http().get('/api/v1/users/me'), admin.access).expect(200);
    await withBearer(t.http().get('/api/v1/users/me/mfa'), admin.access).expect(200);
    // A step-up with the password alone shows no second factor either.
    const byPassword = await reauthenticate(admin.access, { password: PASSWORD });
    expect(jwt.decode(byPassword)).toMatchObject({ amr: ['pwd'] });
    expectError(
      await withBearer(t.http().get('/api/v1/admin/users'), byPassword),
      403,
      'SECOND_FACTOR_REQUIRED',
    );
    // With the app's code: the session's first step and the code, as a login's second step.
    const byCode = await reauthenticate(byPassword, { code: await admin.app.code() });
    expect(jwt.decode(byCode)).toMatchObject({ amr: ['pwd', 'otp'] });
    await withBearer(t.http().get('/api/v1/admin/users'), byCode).expect(200);
    // The old token still shows none: refused, and logout is open to it.
    expectError(
      await withBearer(t.http().get('/api/v1/admin/users'), admin.access),
      403,
      'SECOND_FACTOR_REQUIRED',
    );
    await withBearer(t.http().post('/api/v1/auth/logout'), admin.access).expect(200);
  });

  it('lets in a login that took the second step', async () => {
    const admin = await enrolledAdmin();
    const step = await t
      .http()
      .post('/api/v1/auth/login')
      .send({ email: admin.credentials.email, password: PASSWORD })
      .expect(200);
    const signedIn = await t
      .http()
      .post('/api/v1/auth/mfa/verify')
      .set('X-Token-Delivery', 'body')
      .send({ challenge: step.body.data.challenge, code: await admin.app.code() })
      .expect(200);
    const access = signedIn.body.access_token as string;
    expect(jwt.decode(access)).toMatchObject({ amr: ['pwd', 'otp'] });
    await withBearer(t.http().get('/api/v1/admin/users'), access).expect(200);
  });

  it('asks an administrator with no second factor to enrol first, whatever the token shows', async () => {
    const admin = await enrolledAdmin();
    const step = await t
      .http()
      .post('/api/v1/auth/login')
      .send({ email: admin.credentials.email, password: PASSWORD })
      .expect(200);
    const signedIn = await t
      .http()
      .post('/api/v1/auth/mfa/verify')
      .set('X-Token-Delivery', 'body')
      .send({ challenge: step.body.data.challenge, code: await admin.app.code() })
      .expect(200);
    const access = signedIn.body.access_token as string;
    // Switched off from this session.
    await withBearer(t.http().delete('/api/v1/users/me/mfa/totp'), access)
      .send({ code: await admin.app.code() })
      .expect(200);
    expectError(
      await withBearer(t.http().get('/api/v1/admin/users'), access),
      403,
      'MFA_ENROLMENT_REQUIRED',
    );
  });

  it('makes an administrator enrol before anything else; profile, enrolment and logout stay open', async () => {
    const admin = await registerAndLogin(t, uniqueUser('mustenrol'));
    await t.app.get(UserDirectory).setRole(admin.user.id, 'admin');
    const bearer = (request: ReturnType<ReturnType<TestApp['http']>['get']>) =>
      request.set('Authorization', `Bearer ${admin.access}`);
    expectError(await bearer(t.http().get('/api/v1/admin/users')), 403, 'MFA_ENROLMENT_REQUIRED');
    expectError(
      await bearer(t.http().get('/api/v1/users/me/sessions')),
      403,
      'MFA_ENROLMENT_REQUIRED',
    );
    await bearer(t.http().get('/api/v1/users/me')).expect(200);
    const begun: Response = await bearer(t.http().post('/api/v1/users/me/mfa/totp')).expect(200);
    const app = new Authenticator(begun.body.data.secret as string);
    await bearer(t.http().post('/api/v1/users/me/mfa/totp/confirm'))
      .send({ code: await app.code() })
      .expect(200);
    // Enrolled now, but this token came from the password alone: the role's rule is judged by
    // how the token was obtained, and it says to step up with the second factor.
    const refused = await bearer(t.http().get('/api/v1/admin/users'));
    expectError(refused, 403, 'SECOND_FACTOR_REQUIRED');
    expect(refused.body.message).toMatch(/authenticator app or a passkey/);
    // A plain user is not asked.
    const user = await registerAndLogin(t);
    await t
      .http()
      .get('/api/v1/users/me/sessions')
      .set('Authorization', `Bearer ${user.access}`)
      .expect(200);
  });
});
