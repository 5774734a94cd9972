import { SmtpSink } from './support/mailbox';
import { eventually } from './support/shared-redis';
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

      // Still ready (mail is refused with EMAIL_SERVICE_ERROR meanwhile), and says what is down
      // once its background check has seen it.
      await proxy.cut();
      await eventually(
        async () => (await t.http().get('/api/v1/health/ready')).body.data?.status === 'degraded',
        8000,
      );
      const degraded = await t.http().get('/api/v1/health/ready').expect(200);
      expect(degraded.body).toEqual({
        success: true,
        message: 'Service is ready, degraded: smtp unreachable',
        data: { status: 'degraded', checks: { database: 'up', smtp: 'down' } },
      });

      await proxy.restore();
      await eventually(
        async () => (await t.http().get('/api/v1/health/ready')).body.data?.status === 'ok',
        8000,
      );
    } finally {
      await proxy.stop();
      await sink.stop();
    }
  });

  it('answers readiness within 1 s while SMTP accepts connections and never answers', async () => {
    const sink = await new SmtpSink().start();
    const proxy = await new TcpProxy('127.0.0.1', sink.port).start();
    try {
      // The default SMTP timeout (5 s): readiness must not wait it out.
      t = await startTestApp({ SMTP_URL: `smtp://127.0.0.1:${proxy.port}` });
      await eventually(
        async () => (await t.http().get('/api/v1/health/ready')).body.data?.status === 'ok',
        8000,
      );
      proxy.stall();
      const answers: Array<{ ms: number; smtp: string }> = [];
      // Longer than one SMTP check interval plus the SMTP timeout: every kind of check is met.
      const until = Date.now() + 7000;
      while (Date.now() < until) {
        const started = Date.now();
        const ready = await t.http().get('/api/v1/health/ready').expect(200);
        answers.push({ ms: Date.now() - started, smtp: ready.body.data.checks.smtp });
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(answers.at(-1)?.smtp).toBe('down');
      expect(answers.filter((answer) => answer.ms >= 1000)).toEqual([]);
      expect(answers.length).toBeGreaterThan(20);
    } finally {
      await proxy.stop();
      await sink.stop();
    }
  });
});
