import { expectError, registerAndLogin } from './support/auth-helpers';
import { TestApp, startTestApp } from './support/test-app';

/** `GET /auth/session`: what a page asks when it opens, answered 200 for visitors too. */
describe('GET /auth/session', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('answers a visitor with no cookies 200: no user, nothing to refresh', async () => {
    const response = await t.http().get('/api/v1/auth/session').expect(200);
    expect(response.body).toEqual({
      success: true,
      message: 'Not signed in',
      data: { user: null, refreshable: false, expires_in: null },
    });
  });

  it('names the signed-in user, by cookie or bearer, as verify-token does', async () => {
    const { access, user } = await registerAndLogin(t);
    const byCookie = await t
      .http()
      .get('/api/v1/auth/session')
      .set('Cookie', `access_token=${access}`)
      .expect(200);
    const byBearer = await t
      .http()
      .get('/api/v1/auth/session')
      .set('Authorization', `Bearer ${access}`)
      .expect(200);
    const verified = await t
      .http()
      .get('/api/v1/auth/verify-token')
      .set('Authorization', `Bearer ${access}`)
      .expect(200);
    expect(byCookie.body.data).toEqual({
      user: verified.body.data.user,
      refreshable: false,
      expires_in: expect.any(Number),
    });
    expect(byBearer.body.data.user.id).toBe(user.id);
  });

  it('says a refresh is worth trying when the access token is gone but the refresh cookie is not', async () => {
    const response = await t
      .http()
      .get('/api/v1/auth/session')
      .set('Cookie', 'access_token=expired.or.forged; refresh_token=some-token')
      .expect(200);
    expect(response.body.data).toEqual({ user: null, refreshable: true, expires_in: null });
  });

  it('answers no user for a revoked token, and the token stays refused elsewhere', async () => {
    const { access } = await registerAndLogin(t);
    await t.http().post('/api/v1/auth/logout').set('Authorization', `Bearer ${access}`).expect(200);
    const response = await t
      .http()
      .get('/api/v1/auth/session')
      .set('Authorization', `Bearer ${access}`)
      .expect(200);
    expect(response.body.data.user).toBeNull();
    expectError(
      await t.http().get('/api/v1/auth/verify-token').set('Authorization', `Bearer ${access}`),
      401,
      'INVALID_TOKEN',
    );
  });
});
