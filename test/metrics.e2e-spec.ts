import { spawnSync } from 'node:child_process';
import * as jwt from 'jsonwebtoken';
import {
  cookiesOf,
  expectError,
  refreshWith,
  registerAndLogin,
  registerUser,
} from './support/auth-helpers';
import { REFRESH_SECRET, TestApp, startTestApp } from './support/test-app';

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

    it('has every series of a known label value at 0 before anything happened', async () => {
      const text = (await scrape().expect(200)).text;
      // An alert on increase(...[5m]) > 0 must see the first theft after a restart.
      for (const series of [
        'auth_refreshes_total{outcome="reuse_detected"}',
        'auth_refreshes_total{outcome="ok"}',
        'auth_logins_total{outcome="failed"}',
        'auth_revocations_total{reason="refresh_reuse"}',
        'auth_emails_total{kind="password_reset",outcome="failed"}',
        'auth_registrations_total',
        'auth_rate_limited_total',
      ]) {
        expect(text).toContain(`\n${series} 0\n`);
      }
    });

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

  describe('served text', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp({ METRICS_TOKEN: TOKEN });
    });
    afterAll(() => t.close());

    const scrape = async () =>
      (await t.http().get('/metrics').set('Authorization', `Bearer ${TOKEN}`).expect(200)).text;

    it('counts expired, malformed and wrong-kind refresh tokens as invalid', async () => {
      const session = await registerAndLogin(t);
      const claims = jwt.decode(session.refresh) as Record<string, unknown>;
      const expired = jwt.sign(
        { ...claims, exp: Math.floor(Date.now() / 1000) - 5 },
        REFRESH_SECRET,
      );
      const invalid = 'auth_refreshes_total{outcome="invalid"}';
      const before = sample(await scrape(), invalid);
      for (const token of [expired, 'not-a-token', session.access]) {
        expectError(await refreshWith(t, token), 401, 'INVALID_TOKEN');
      }
      expect(sample(await scrape(), invalid) - before).toBe(3);
    });

    it('passes promtool check metrics', async () => {
      await t.http().get('/api/v1/health').expect(200);
      const text = await scrape();
      const result = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
      if (result.error && 'code' in result.error && result.error.code === 'ENOENT') {
        throw new Error(
          "promtool is not installed: install Debian's prometheus package " +
            '(apt-get install -y --no-install-recommends prometheus)',
        );
      }
      expect({ status: result.status, problems: `${result.stdout}${result.stderr}` }).toEqual({
        status: 0,
        problems: '',
      });
    });
  });
});
