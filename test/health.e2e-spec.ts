import { SmtpSink } from './support/mailbox';
import { TcpProxy } from './support/tcp-proxy';
import { TestApp, startTestApp } from './support/test-app';

describe('liveness and readiness', () => {
  let t: TestApp;
  afterEach(() => t?.close());

  it('reports the database only, when neither Redis nor SMTP is configured', async () => {
    t = await startTestApp();
    expect((await t.http().get('/api/v1/health').expect(200)).body).toEqual({
      success: true,
      message: 'Service is alive',
      data: { status: 'ok' },
    });
    expect((await t.http().get('/api/v1/health/ready').expect(200)).body).toEqual({
      success: true,
      message: 'Service is ready',
      data: { status: 'ok', checks: { database: 'up' } },
    });
  });

  it('answers a load balancer probing faster than the general rate limit allows', async () => {
    t = await startTestApp({ THROTTLE_LIMIT: '5', THROTTLE_AUTH_LIMIT: '5' });
    for (let probe = 0; probe < 30; probe++) {
      await t.http().get('/api/v1/health').expect(200);
      await t.http().get('/api/v1/health/ready').expect(200);
    }
    // The limit itself still holds for the API.
    const answers = [];
    for (let call = 0; call < 6; call++)
      answers.push(await t.http().get('/api/v1/auth/verify-token'));
    expect(answers.map((answer) => answer.status)).toEqual([401, 401, 401, 401, 401, 429]);
  });

  it('reports SMTP when configured, as degraded (not unready) while it is down', async () => {
    const sink = await new SmtpSink().start();
    const proxy = await new TcpProxy('127.0.0.1', sink.port).start();
    try {
      t = await startTestApp({
        SMTP_URL: `smtp://127.0.0.1:${proxy.port}`,
        SMTP_TIMEOUT_MS: '500',
      });
      const ready = await t.http().get('/api/v1/health/ready').expect(200);
      expect(ready.body.data.checks).toEqual({ database: 'up', smtp: 'up' });

      // Still ready (mail is refused with EMAIL_SERVICE_ERROR meanwhile), and says what is down.
      await proxy.cut();
      const degraded = await t.http().get('/api/v1/health/ready').expect(200);
      expect(degraded.body).toEqual({
        success: true,
        message: 'Service is ready, degraded: smtp unreachable',
        data: { status: 'degraded', checks: { database: 'up', smtp: 'down' } },
      });

      await proxy.restore();
      const back = await t.http().get('/api/v1/health/ready').expect(200);
      expect(back.body.data.status).toBe('ok');
    } finally {
      await proxy.stop();
      await sink.stop();
    }
  });
});
