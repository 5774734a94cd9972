import {
  cookiesOf,
  expectError,
  refreshWith,
  registerAndLogin,
  registerUser,
} from './support/auth-helpers';
import { SmtpSink } from './support/mailbox';
import { TestApp, startTestApp } from './support/test-app';

describe('the hashing pool under a login storm', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ BCRYPT_COST: '10', HASH_THREADS: '1', HASH_QUEUE_LIMIT: '1' });
  });
  afterAll(() => t.close());

  it('answers 503 SERVICE_UNAVAILABLE with Retry-After at once when the queue is full', async () => {
    const { credentials } = await registerUser(t);
    const storm = await Promise.all(
      Array.from({ length: 8 }, () =>
        t
          .http()
          .post('/api/v1/auth/login')
          .send({ email: credentials.email, password: credentials.password }),
      ),
    );
    const busy = storm.filter((response) => response.status === 503);
    expect(busy.length).toBeGreaterThan(0);
    expect(storm.filter((response) => response.status === 200).length).toBeGreaterThan(0);
    for (const response of busy) {
      expectError(response, 503, 'SERVICE_UNAVAILABLE');
      expect(response.headers['retry-after']).toBe('1');
    }
    expect(storm.every((response) => [200, 503].includes(response.status))).toBe(true);
  });
});

describe('the in-process user cache', () => {
  let t: TestApp;
  let sink: SmtpSink;
  beforeAll(async () => {
    sink = await new SmtpSink().start();
    t = await startTestApp({ USER_CACHE_TTL: '3600', SMTP_URL: sink.url });
  });
  afterAll(async () => {
    await t.close();
    await sink.stop();
  });

  const check = (access: string) =>
    t.http().get('/api/v1/auth/verify-token').set('Authorization', `Bearer ${access}`);

  it('never accepts a token revoked by logout, even while warm', async () => {
    const session = await registerAndLogin(t);
    for (let i = 0; i < 3; i++) await check(session.access).expect(200);
    await t
      .http()
      .post('/api/v1/auth/logout')
      .set('Authorization', `Bearer ${session.access}`)
      .expect(200);
    expectError(await check(session.access), 401, 'INVALID_TOKEN');
  });

  it('never accepts a token revoked by a password reset, even while warm', async () => {
    const session = await registerAndLogin(t);
    await check(session.access).expect(200);
    await t
      .http()
      .post('/api/v1/auth/forgot-password')
      .send({ email: session.credentials.email })
      .expect(200);
    await t
      .http()
      .post('/api/v1/auth/reset-password')
      .send({ token: sink.last().token, newPassword: 'after-reset-1' })
      .expect(200);
    expectError(await check(session.access), 401, 'INVALID_TOKEN');
  });

  it('shows a verified email at once after verification', async () => {
    const session = await registerAndLogin(t);
    expect((await check(session.access).expect(200)).body.data.user.email_verified).toBe(false);
    await t
      .http()
      .post('/api/v1/auth/resend-verification-email')
      .send({ email: session.credentials.email })
      .expect(200);
    await t.http().post('/api/v1/auth/verify-email').send({ token: sink.last().token }).expect(200);
    expect((await check(session.access).expect(200)).body.data.user.email_verified).toBe(true);
  });
});

// Its own app, started after the one above has closed: Passport's strategy registry is
// process-wide, so only one instance of the service may be live in a process at a time.
describe('the in-process user cache and refresh-token reuse', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ USER_CACHE_TTL: '3600', REFRESH_REUSE_GRACE: '0' });
  });
  afterAll(() => app.close());

  it('never accepts a token revoked by refresh-token reuse, even while warm', async () => {
    const session = await registerAndLogin(app);
    const rotated = await refreshWith(app, session.refresh).expect(200);
    const access = cookiesOf(rotated).access_token.value;
    await app
      .http()
      .get('/api/v1/auth/verify-token')
      .set('Authorization', `Bearer ${access}`)
      .expect(200);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expectError(await refreshWith(app, session.refresh), 401, 'INVALID_TOKEN');
    expectError(
      await app.http().get('/api/v1/auth/verify-token').set('Authorization', `Bearer ${access}`),
      401,
      'INVALID_TOKEN',
    );
  });
});
