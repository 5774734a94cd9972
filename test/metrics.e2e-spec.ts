import { cookiesOf, expectError, refreshWith, registerUser } from './support/auth-helpers';
import { TestApp, startTestApp } from './support/test-app';

const TOKEN = 'metrics-token-0123456789-abcdefghijkl';

/** The value of one series in Prometheus text, e.g. `auth_logins_total{outcome="ok"}`. */
function sample(text: string, series: string): number {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

describe('/metrics', () => {
  describe('without METRICS_TOKEN', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp();
    });
    afterAll(() => t.close());

    it('is not there', async () => {
      expectError(await t.http().get('/metrics'), 404, 'NOT_FOUND');
      expectError(await t.http().get('/api/v1/metrics'), 404, 'NOT_FOUND');
    });
  });

  describe('with METRICS_TOKEN', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp({
        METRICS_TOKEN: TOKEN,
        THROTTLE_AUTH_LIMIT: '6',
        THROTTLE_LIMIT: '40',
        REFRESH_REUSE_GRACE: '0',
      });
    });
    afterAll(() => t.close());

    const scrape = () => t.http().get('/metrics').set('Authorization', `Bearer ${TOKEN}`);

    it('refuses a scraper without the token', async () => {
      expectError(await t.http().get('/metrics'), 401, 'INVALID_TOKEN');
      expectError(
        await t.http().get('/metrics').set('Authorization', `Bearer ${TOKEN}x`),
        401,
        'INVALID_TOKEN',
      );
    });

    it('counts outcomes and times requests by route pattern', async () => {
      const { credentials } = await registerUser(t);
      const login = (password: string) =>
        t.http().post('/api/v1/auth/login').send({ email: credentials.email, password });
      const session = cookiesOf(await login(credentials.password).expect(200));
      await login('wrong-password-1').expect(401);
      await t
        .http()
        .post('/api/v1/auth/forgot-password')
        .send({ email: credentials.email })
        .expect(200);
      const rotated = cookiesOf(await refreshWith(t, session.refresh_token.value).expect(200));
      await new Promise((resolve) => setTimeout(resolve, 20));
      await refreshWith(t, session.refresh_token.value).expect(401);
      await login('wrong-password-2').expect(401);
      await login('wrong-password-3').expect(401);
      expectError(await login('wrong-password-4'), 429, 'RATE_LIMITED');
      expect(rotated.access_token.value).toBeTruthy();

      const response = await scrape().expect(200);
      const text = response.text;
      expect(response.headers['content-type']).toMatch(/^text\/plain/);
      expect(sample(text, 'auth_registrations_total')).toBe(1);
      expect(sample(text, 'auth_logins_total{outcome="ok"}')).toBe(1);
      expect(sample(text, 'auth_logins_total{outcome="failed"}')).toBe(3);
      expect(sample(text, 'auth_refreshes_total{outcome="ok"}')).toBe(1);
      expect(sample(text, 'auth_refreshes_total{outcome="reuse_detected"}')).toBe(1);
      expect(sample(text, 'auth_revocations_total{reason="refresh_reuse"}')).toBe(1);
      expect(sample(text, 'auth_rate_limited_total')).toBe(1);
      expect(sample(text, 'auth_emails_total{kind="verification",outcome="sent"}')).toBe(1);
      expect(sample(text, 'auth_emails_total{kind="password_reset",outcome="sent"}')).toBe(1);
      expect(
        sample(
          text,
          'http_request_duration_seconds_count{method="POST",route="/api/v1/auth/login",status_code="401"}',
        ),
      ).toBe(3);
      expect(text).toContain('process_cpu_seconds_total');
      // Labels are route patterns: no email, token or query string ever becomes a series.
      expect(text).not.toContain(credentials.email);
      expect(text).not.toContain(session.refresh_token.value);
    });

    it('is not rate-limited: a scraper calls every few seconds', async () => {
      for (let i = 0; i < 45; i++) await scrape().expect(200);
    });
  });
});
