import * as jwt from 'jsonwebtoken';
import { Response } from 'supertest';
import { LoggedIn, PASSWORD, cookiesOf, registerAndLogin } from './support/auth-helpers';
import { APP_ORIGIN, TestApp, startTestApp } from './support/test-app';

/** Not the default (900): the answers must follow the configuration. */
const ACCESS_TTL = 120;

/**
 * `data.expires_in` of the cookie answers: the access token sits in an HttpOnly cookie the page
 * cannot read, so the answers that set it (and GET /auth/session) say how long it lives, and the
 * SDK renews ahead of its expiry instead of learning of it from a 401. Requests are what a
 * browser on the app's origin sends.
 */
describe('the access token’s lifetime in cookie answers (expires_in)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ ACCESS_TOKEN_TTL: String(ACCESS_TTL) });
  });
  afterAll(() => t.close());

  const session = (cookie?: string) => {
    const request = t.http().get('/api/v1/auth/session').set('Origin', APP_ORIGIN);
    return cookie === undefined ? request : request.set('Cookie', cookie);
  };

  it('login: ACCESS_TOKEN_TTL, the cookie’s own lifetime and Max-Age, beside the user', async () => {
    const user = await registerAndLogin(t);
    const response = await t
      .http()
      .post('/api/v1/auth/login')
      .set('Origin', APP_ORIGIN)
      .send({ email: user.credentials.email, password: PASSWORD })
      .expect(200);
    expectLifetime(response);
    expect(response.body.data.user.id).toBe(user.user.id);
    expect(response.body.message).toBe('Login successful');
  });

  it('refresh: the renewed token’s lifetime', async () => {
    const user = await registerAndLogin(t);
    const response = await t
      .http()
      .post('/api/v1/auth/refresh')
      .set('Origin', APP_ORIGIN)
      .set('Cookie', `refresh_token=${user.refresh}`)
      .expect(200);
    expectLifetime(response);
    expect(response.body.message).toBe('Token refreshed');
  });

  it('reauthenticate and a password change, which set new cookies too', async () => {
    const user = await registerAndLogin(t);
    const again = await as(user)
      .post('/api/v1/auth/reauthenticate')
      .send({ password: PASSWORD })
      .expect(200);
    expectLifetime(again);
    const changed = await as(user)
      .post('/api/v1/users/me/password')
      .send({ currentPassword: PASSWORD, newPassword: 'another horse' })
      .expect(200);
    expectLifetime(changed);
  });

  it('the body-token answer keeps its own expires_in, and no envelope', async () => {
    const user = await registerAndLogin(t);
    const response = await t
      .http()
      .post('/api/v1/auth/login')
      .set('X-Token-Delivery', 'body')
      .send({ email: user.credentials.email, password: PASSWORD })
      .expect(200);
    expect(response.body.expires_in).toBe(ACCESS_TTL);
    expect(response.body.data).toBeUndefined();
    expect(response.body.success).toBeUndefined();
  });

  it('GET /auth/session: the seconds left on the token presented, by cookie or bearer', async () => {
    const user = await registerAndLogin(t);
    const { exp } = jwt.decode(user.access) as { exp: number };
    for (const request of [
      session(`access_token=${user.access}`),
      session().set('Authorization', `Bearer ${user.access}`),
    ]) {
      const before = Math.floor(Date.now() / 1000);
      const response = await request.expect(200);
      const after = Math.floor(Date.now() / 1000);
      expect(response.body.data.expires_in).toBeGreaterThanOrEqual(exp - after);
      expect(response.body.data.expires_in).toBeLessThanOrEqual(exp - before);
      expect(response.body.data.expires_in).toBeLessThanOrEqual(ACCESS_TTL);
    }
  });

  it('GET /auth/session: counts down as the token ages', async () => {
    const user = await registerAndLogin(t);
    const first = await session(`access_token=${user.access}`).expect(200);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const later = await session(`access_token=${user.access}`).expect(200);
    expect(later.body.data.expires_in).toBeLessThan(first.body.data.expires_in as number);
  });

  it('GET /auth/session: null without a user, whatever the cookies', async () => {
    expect((await session().expect(200)).body.data).toEqual({
      user: null,
      refreshable: false,
      expires_in: null,
    });
    expect(
      (await session('access_token=expired.or.forged; refresh_token=x').expect(200)).body.data,
    ).toEqual({ user: null, refreshable: true, expires_in: null });
  });

  /** A signed-in request as the browser sends it: the access cookie, from the app's origin. */
  function as(user: LoggedIn) {
    const cookie = `access_token=${user.access}`;
    return {
      post: (path: string) => t.http().post(path).set('Origin', APP_ORIGIN).set('Cookie', cookie),
    };
  }
});

/** `data.expires_in` is the new access cookie's lifetime: its token's exp - iat, its Max-Age. */
function expectLifetime(response: Response): void {
  const cookie = cookiesOf(response).access_token;
  const claims = jwt.decode(cookie.value) as { iat: number; exp: number };
  expect(response.body.data.expires_in).toBe(ACCESS_TTL);
  expect(claims.exp - claims.iat).toBe(ACCESS_TTL);
  expect(/Max-Age=(\d+)/i.exec(cookie.raw)?.[1]).toBe(String(ACCESS_TTL));
  expect(Number.isInteger(response.body.data.expires_in)).toBe(true);
}
