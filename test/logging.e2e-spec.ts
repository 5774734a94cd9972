import { Response } from 'supertest';
import { cookiesOf, uniqueUser } from './support/auth-helpers';
import { SmtpSink } from './support/mailbox';
import { TestApp, startTestApp } from './support/test-app';

/** What the service wrote, line by line, as pino hands it to its destination. */
class LogLines {
  readonly raw: string[] = [];
  write(line: string): void {
    this.raw.push(line);
  }
  parsed(): Array<Record<string, unknown>> {
    return this.raw.map((line) => JSON.parse(line) as Record<string, unknown>);
  }
  text(): string {
    return this.raw.join('');
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('logs', () => {
  const logs = new LogLines();
  let sink: SmtpSink;
  let t: TestApp;
  /** Every answer of the walk below, to match each with its log line. */
  const answers: Response[] = [];
  /** Every value that must never be written to a log. */
  const secrets = new Set<string>();
  let refusedReset: Response;

  beforeAll(async () => {
    sink = await new SmtpSink().start();
    // trace: whatever any level would write is checked.
    t = await startTestApp(
      // TRUST_PROXY: the test client is a proxy whose X-Request-Id counts.
      { SMTP_URL: sink.url, SMTP_TIMEOUT_MS: '2000', LOG_LEVEL: 'trace', TRUST_PROXY: 'loopback' },
      { logDestination: logs },
    );
  });
  afterAll(async () => {
    await t.close();
    await sink.stop();
  });

  const keep = (response: Response) => {
    answers.push(response);
    return response;
  };
  const post = async (path: string, body: object | string, headers: Record<string, string> = {}) =>
    keep(await t.http().post(`/api/v1${path}`).set(headers).send(body));
  const get = async (path: string, headers: Record<string, string> = {}) =>
    keep(await t.http().get(`/api/v1${path}`).set(headers));
  const remember = (...values: string[]) => values.forEach((value) => secrets.add(value));
  const cookieValues = (response: Response) =>
    Object.values(cookiesOf(response))
      .map((cookie) => cookie.value)
      .filter(Boolean);

  it('writes no password, token, cookie or emailed link, across every flow', async () => {
    const user = uniqueUser('Logs');
    const newPassword = 'a brand new passphrase';
    const wrongPassword = 'not the right one at all';
    remember(user.password, newPassword, wrongPassword);

    expect((await post('/auth/register', user)).status).toBe(201);
    const verification = sink.last();
    remember(verification.token, verification.link);

    const loggedIn = await post('/auth/login', { email: user.email, password: user.password });
    expect(loggedIn.status).toBe(200);
    remember(...cookieValues(loggedIn));
    const { access_token: access, refresh_token: refresh } = cookiesOf(loggedIn);
    const bodyTokens = await post(
      '/auth/login',
      { email: user.email, password: user.password },
      { 'X-Token-Delivery': 'body' },
    );
    const issued = bodyTokens.body as { access_token: string; refresh_token: string };
    remember(issued.access_token, issued.refresh_token);

    expect(
      (await get('/auth/verify-token', { Authorization: `Bearer ${access.value}` })).status,
    ).toBe(200);
    expect((await get('/users/me', { Cookie: `access_token=${access.value}` })).status).toBe(200);
    const refreshed = await post('/auth/refresh', {}, { Cookie: `refresh_token=${refresh.value}` });
    expect(refreshed.status).toBe(200);
    remember(...cookieValues(refreshed));
    const rotated = await post(
      '/auth/refresh',
      {},
      { Cookie: `refresh_token=${issued.refresh_token}`, 'X-Token-Delivery': 'body' },
    );
    expect(rotated.status).toBe(200);
    const reissued = rotated.body as { access_token: string; refresh_token: string };
    remember(reissued.access_token, reissued.refresh_token);

    // The link as a browser opens it (token in the query string), then the page's POST.
    const link = new URL(verification.link);
    expect((await get(link.pathname.replace('/api/v1', '') + link.search)).status).toBe(200);
    expect((await post('/auth/verify-email', { token: verification.token })).status).toBe(200);

    expect((await post('/auth/forgot-password', { email: user.email })).status).toBe(200);
    const reset = sink.last();
    remember(reset.token, reset.link);
    const resetLink = new URL(reset.link);
    expect((await get(resetLink.pathname.replace('/api/v1', '') + resetLink.search)).status).toBe(
      200,
    );
    expect((await post('/auth/reset-password', { token: reset.token, newPassword })).status).toBe(
      200,
    );

    // Refused and malformed requests carry secrets too.
    expect((await post('/auth/login', { email: user.email, password: wrongPassword })).status).toBe(
      401,
    );
    const malformed = `{"email":"${user.email}","password":"${wrongPassword}"`;
    expect(
      (await post('/auth/login', malformed, { 'Content-Type': 'application/json' })).status,
    ).toBe(400);
    expect((await post('/auth/reset-password', { token: reset.token, newPassword })).status).toBe(
      401,
    );

    const again = await post('/auth/login', { email: user.email, password: newPassword });
    remember(...cookieValues(again));
    const { access_token: last } = cookiesOf(again);
    expect((await post('/auth/logout', {}, { Authorization: `Bearer ${last.value}` })).status).toBe(
      200,
    );

    // A refused mail is logged (with the reason), still without the link it carried.
    sink.refuse = { responseCode: 550, message: 'mailbox unavailable' };
    const refused = await post('/auth/forgot-password', { email: user.email });
    expect(refused.status).toBe(503);
    refusedReset = refused;
    const stranger = uniqueUser('Unmailed');
    const unmailed = await post('/auth/register', stranger);
    expect(unmailed.status).toBe(201);
    remember(stranger.password);

    const text = logs.text();
    expect(secrets.size).toBeGreaterThan(12);
    for (const secret of secrets) {
      expect(secret.length).toBeGreaterThan(8);
      if (text.includes(secret)) throw new Error(`A log line holds a secret: ${secret}`);
    }
    // Nor any header that carries one, under any name.
    expect(text).not.toMatch(/bearer|cookie|(?<!oauth-)authorization|set-cookie|\?token=/i);
    sink.refuse = undefined;
  });

  it('writes JSON lines only, one per request, with the id the response names', () => {
    const lines = logs.parsed();
    expect(lines.length).toBeGreaterThan(answers.length);
    for (const line of lines) {
      expect(line).toEqual(
        expect.objectContaining({
          level: expect.any(Number),
          time: expect.any(Number),
          msg: expect.any(String),
        }),
      );
    }
    for (const answer of answers) {
      const id = answer.headers['x-request-id'];
      expect(id).toMatch(UUID);
      const own = lines.filter((line) => line.requestId === id && 'responseTime' in line);
      expect(own).toEqual([
        expect.objectContaining({
          method: answer.request.method,
          path: new URL(answer.request.url).pathname,
          status: answer.status,
          responseTime: expect.any(Number),
        }),
      ]);
    }
    // Nest's own lines are JSON too, with their source.
    expect(lines).toContainEqual(
      expect.objectContaining({
        context: 'NestApplication',
        msg: 'Nest application successfully started',
      }),
    );
  });

  it('puts the request id on the lines a request writes while it runs', () => {
    const linesOf = (answer: Response) =>
      logs.parsed().filter((line) => line.requestId === answer.headers['x-request-id']);
    expect(linesOf(answers.at(-1)!)).toEqual([
      expect.objectContaining({
        level: 40,
        context: 'AuthService',
        msg: expect.stringMatching(/^Verification email for \S+ not sent \(EMESSAGE 550\)/),
      }),
      expect.objectContaining({ msg: 'request completed', status: 201 }),
    ]);
    expect(linesOf(refusedReset)).toEqual([
      expect.objectContaining({
        level: 40,
        context: 'EmailLinksService',
        msg: expect.stringMatching(
          /^The password_reset email to \S+ was not sent \(EMESSAGE 550\)$/,
        ),
      }),
      // A 503 is a designed answer, its cause logged above: the request line is no error.
      expect.objectContaining({ level: 30, msg: 'request completed', status: 503 }),
    ]);
  });

  it("keeps a trusted proxy's well-formed request id and replaces any other", async () => {
    const given = await get('/health', { 'X-Request-Id': 'gateway.trace-42' });
    expect(given.headers['x-request-id']).toBe('gateway.trace-42');
    const forged = await get('/health', { 'X-Request-Id': 'forged"} {"level":60' });
    expect(forged.headers['x-request-id']).toMatch(UUID);
    const lines = logs.parsed();
    expect(lines).toContainEqual(
      expect.objectContaining({ requestId: 'gateway.trace-42', status: 200 }),
    );
    expect(logs.text()).not.toContain('forged');
  });
});

describe('request ids from clients', () => {
  it('replaces an X-Request-Id from a peer TRUST_PROXY does not trust', async () => {
    const t = await startTestApp();
    try {
      const answer = await t.http().get('/api/v1/health').set('X-Request-Id', 'chosen-by-client');
      expect(answer.headers['x-request-id']).toMatch(UUID);
      // A URL the router refuses (it does not decode) is answered with an id too.
      const malformed = await t.http().get('/api/v1/%E0%A4%A');
      expect(malformed.status).toBe(400);
      expect(malformed.headers['x-request-id']).toMatch(UUID);
    } finally {
      await t.close();
    }
  });
});
