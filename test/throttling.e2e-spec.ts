import { expectError, uniqueUser } from './support/auth-helpers';
import { TestApp, startTestApp } from './support/test-app';

const limits = { THROTTLE_LIMIT: '50', THROTTLE_AUTH_LIMIT: '5', THROTTLE_TTL: '900' };

describe('rate limits', () => {
  describe('the strict auth limit', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp(limits);
    });
    afterAll(() => t.close());

    it('is one budget per IP across auth routes, aliases and path spellings', async () => {
      const bad = { email: 'nobody@example.com', password: 'wrong-password' };
      const attempts = [
        await t.http().post('/api/v1/auth/login').send(bad),
        await t.http().post('/API/V1/AUTH/LOGIN').send(bad),
        await t.http().post('/api/v1/auth/login/').send(bad),
        await t.http().post('/api/v1/auth/register').send(uniqueUser()),
        await t.http().post('/Api/v1/Auth/Register/').send(uniqueUser()),
      ];
      expect(attempts.map((response) => response.status)).toEqual([401, 401, 401, 201, 201]);
      // Express 5 routes no doubled slash, so that spelling reaches no handler and no budget.
      expectError(await t.http().post('/api/v1//auth/login').send(bad), 404, 'NOT_FOUND');

      const sixth = await t.http().post('/api/v1/auth/login').send(bad);
      expectError(sixth, 429, 'RATE_LIMITED');
      const retryAfter = Number(sixth.headers['retry-after']);
      expect(retryAfter).toBeGreaterThan(800);
      expect(retryAfter).toBeLessThanOrEqual(900);
      expectError(
        await t.http().post('/api/v1/auth/register').send(uniqueUser()),
        429,
        'RATE_LIMITED',
      );
    });

    it('leaves refresh and verify-token on the general limit only, health on none', async () => {
      await t.http().get('/api/v1/health').expect(200);
      expectError(await t.http().get('/api/v1/auth/verify-token'), 401, 'INVALID_TOKEN');
      expectError(await t.http().post('/api/v1/auth/refresh'), 401, 'INVALID_TOKEN');
    });

    it('cannot be escaped with a made-up X-Forwarded-For', async () => {
      const response = await t
        .http()
        .post('/api/v1/auth/login')
        .set('X-Forwarded-For', '203.0.113.77')
        .send({ email: 'nobody@example.com', password: 'wrong-password' });
      expectError(response, 429, 'RATE_LIMITED');
    });
  });

  describe('the email routes', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp(limits);
    });
    afterAll(() => t.close());

    it('draw from the same strict budget through every alias', async () => {
      const nobody = { email: 'nobody@example.com' };
      const attempts = [
        await t.http().post('/api/v1/auth/forgot-password').send(nobody),
        await t.http().post('/api/v1/email/forgot-password').send(nobody),
        await t.http().post('/api/v1/email/reset').send(nobody),
        await t.http().post('/api/v1/email/resend-verification-email').send(nobody),
        await t.http().post('/api/v1/email/verify').send({ token: 'nope' }),
      ];
      expect(attempts.map((response) => response.status)).toEqual([404, 404, 404, 409, 401]);
      expectError(
        await t
          .http()
          .post('/api/v1/auth/reset-password')
          .send({ token: 'x', newPassword: 'new-pass' }),
        429,
        'RATE_LIMITED',
      );
      expectError(await t.http().post('/api/v1/auth/login').send(nobody), 429, 'RATE_LIMITED');
      // The pages the emailed links open are on the general limit.
      await t.http().get('/api/v1/auth/reset-password?token=x').expect(200);
    });
  });

  describe('the general limit', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp({ ...limits, THROTTLE_LIMIT: '4' });
    });
    afterAll(() => t.close());

    it('counts every route of one IP together and answers 429 past it', async () => {
      await t.http().get('/api/v1/auth/verify-token').expect(401);
      await t.http().post('/api/v1/auth/refresh').expect(401);
      await t.http().get('/API/V1/AUTH/VERIFY-TOKEN/').expect(401);
      await t.http().post('/api/v1/auth/logout').expect(401);
      // Probes take no part in it, before or past the limit.
      await t.http().get('/api/v1/health').expect(200);
      const over = await t.http().get('/api/v1/auth/verify-token');
      expectError(over, 429, 'RATE_LIMITED');
      expect(Number(over.headers['retry-after'])).toBeGreaterThan(0);
      await t.http().get('/api/v1/health/ready').expect(200);
    });
  });

  describe('behind a trusted proxy (TRUST_PROXY=1)', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp({ ...limits, THROTTLE_AUTH_LIMIT: '2', TRUST_PROXY: '1' });
    });
    afterAll(() => t.close());

    it('keys on the address the proxy saw, not on what the client wrote before it', async () => {
      const bad = { email: 'nobody@example.com', password: 'wrong-password' };
      const from = (chain: string) =>
        t.http().post('/api/v1/auth/login').set('X-Forwarded-For', chain).send(bad);
      expect((await from('198.51.100.1')).status).toBe(401);
      expect((await from('1.1.1.1, 198.51.100.1')).status).toBe(401);
      expectError(await from('2.2.2.2, 198.51.100.1'), 429, 'RATE_LIMITED');
      // Another client behind the same proxy has its own budget.
      expect((await from('198.51.100.2')).status).toBe(401);
    });
  });
});
