import { expectError, uniqueUser } from './support/auth-helpers';
import { Response } from 'supertest';
import { APP_ORIGIN, TestApp, startTestApp } from './support/test-app';

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
      // Express 5 routes no doubled slash, so that spelling reaches no handler and no strict budget.
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

/**
 * Requests no route handles (an unknown path, a CORS preflight) never reached the throttler's
 * guard, which Nest runs on matched routes only: one address could send any number of them.
 */
describe('the general limit on requests no route handles', () => {
  /** What Chromium sends with a preflight from the app on another port of the same host. */
  const preflight = (t: TestApp, path: string) =>
    t
      .http()
      .options(path)
      .set('Origin', APP_ORIGIN)
      .set('Access-Control-Request-Method', 'POST')
      .set('Access-Control-Request-Headers', 'content-type')
      .set('Sec-Fetch-Mode', 'cors')
      .set('Sec-Fetch-Site', 'same-site')
      .set('Sec-Fetch-Dest', 'empty');
  const expectLimited = (response: Response) => {
    expectError(response, 429, 'RATE_LIMITED');
    const retryAfter = Number(response.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(800);
    expect(retryAfter).toBeLessThanOrEqual(900);
  };

  describe('unknown routes', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp(limits);
    });
    afterAll(() => t.close());

    it('count: 50 answer 404 from one address, the 51st 429 with Retry-After', async () => {
      const statuses: number[] = [];
      for (let i = 0; i < 50; i++) statuses.push((await t.http().get(`/api/v1/nope${i}`)).status);
      expect(statuses).toEqual(statuses.map(() => 404));
      const over = await t.http().get('/api/v1/nope50').set('Origin', APP_ORIGIN);
      expectLimited(over);
      // A page can read the answer and its Retry-After.
      expect(over.headers['access-control-allow-origin']).toBe(APP_ORIGIN);
      expect(over.headers['access-control-expose-headers']).toMatch(/Retry-After/);
      // The budget is the address's, spent for its real routes too.
      expectLimited(await t.http().get('/api/v1/auth/verify-token'));
    });
  });

  describe('CORS preflights', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp(limits);
    });
    afterAll(() => t.close());

    it('count: 50 answer 204 from one address, the 51st 429 with Retry-After', async () => {
      const paths = ['/api/v1/auth/login', '/api/v1/auth/refresh', '/api/v1/users/me'];
      const statuses: number[] = [];
      for (let i = 0; i < 50; i++) statuses.push((await preflight(t, paths[i % 3])).status);
      expect(statuses).toEqual(statuses.map(() => 204));
      expectLimited(await preflight(t, '/api/v1/auth/login'));
      expectLimited(await t.http().get('/api/v1/nope'));
    });
  });

  describe('mixed with real routes', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp({
        ...limits,
        THROTTLE_LIMIT: '6',
        METRICS_TOKEN: 'metrics-token-0123456789-abcdefghijkl',
        EMAIL_CODE_LOGIN: 'false',
      });
    });
    afterAll(() => t.close());

    const exempt = ['/api/v1/health', '/api/v1/health/ready', '/.well-known/jwks.json'];
    const exemptAnswers = async () => {
      const answers = [
        ...(await Promise.all(exempt.map((path) => t.http().get(path)))),
        await t
          .http()
          .get('/metrics')
          .set('Authorization', 'Bearer metrics-token-0123456789-abcdefghijkl'),
        await t.http().get('/.well-known/oauth-authorization-server'),
        ...(await Promise.all(
          [...exempt, '/metrics', '/API/V1/HEALTH/'].map((path) => preflight(t, path)),
        )),
      ];
      return answers.map((answer) => answer.status);
    };

    it('share one budget per address, and the probes and public documents stay outside it', async () => {
      const before = await exemptAnswers();
      expect(before).toEqual([200, 200, 200, 200, 200, 204, 204, 204, 204, 204]);
      const statuses = [
        (await t.http().get('/api/v1/nope')).status,
        (await preflight(t, '/api/v1/auth/login')).status,
        (await t.http().get('/api/v1/auth/verify-token')).status,
        (await t.http().post('/api/v1/nope').send({})).status,
        // curl's OPTIONS: no Origin, so no CORS answers it and no route takes it.
        (await t.http().options('/api/v1/auth/login')).status,
        // A switched-off feature answers as an absent route does, budget included.
        (await t.http().post('/api/v1/auth/email-code').send({ email: 'x@example.com' })).status,
      ];
      expect(statuses).toEqual([404, 204, 401, 404, 404, 404]);
      expectLimited(await t.http().get('/api/v1/nope'));
      expectLimited(await preflight(t, '/api/v1/auth/refresh'));
      expectLimited(await t.http().post('/api/v1/auth/refresh'));
      expectLimited(
        await t.http().post('/api/v1/auth/email-code').send({ email: 'x@example.com' }),
      );
      expect(await exemptAnswers()).toEqual(before);
    });
  });
});
