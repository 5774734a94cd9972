import { Server } from 'node:http';
import { AddressInfo, connect } from 'node:net';
import { LoggedIn, PASSWORD, expectError, registerAndLogin } from './support/auth-helpers';
import { APP_ORIGIN, TestApp, startTestApp } from './support/test-app';

describe('HTTP surface: envelope, body rules, headers, CORS and CSRF', () => {
  let t: TestApp;
  let session: LoggedIn;

  beforeAll(async () => {
    t = await startTestApp();
    session = await registerAndLogin(t);
  });
  afterAll(() => t.close());

  it.each([
    ['get', '/api/v1/nowhere'],
    ['post', '/api/v1/auth/unknown'],
    ['get', '/'],
    ['delete', '/api/v1/auth/login'],
  ] as const)('answers %s %s with 404 NOT_FOUND in the envelope', async (method, path) => {
    expectError(await t.http()[method](path), 404, 'NOT_FOUND');
  });

  it('answers a non-JSON body with 415 UNSUPPORTED_MEDIA_TYPE (no cross-site form posts)', async () => {
    const response = await t
      .http()
      .post('/api/v1/auth/login')
      .type('form')
      .send('email=a@example.com&password=secret');
    expectError(response, 415, 'UNSUPPORTED_MEDIA_TYPE');
    const text = await t
      .http()
      .post('/api/v1/auth/register')
      .set('Content-Type', 'text/plain')
      .send('{"email":"a@example.com"}');
    expectError(text, 415, 'UNSUPPORTED_MEDIA_TYPE');
  });

  it('refuses another content type before routing and reading, even with an empty body', async () => {
    const empty = await t
      .http()
      .post('/api/v1/auth/logout')
      .set('Authorization', `Bearer ${session.access}`)
      .set('Content-Type', 'text/plain');
    expectError(empty, 415, 'UNSUPPORTED_MEDIA_TYPE');
    const nowhere = await t
      .http()
      .post('/api/v1/nowhere')
      .set('Content-Type', 'text/plain')
      .send('hello');
    expectError(nowhere, 415, 'UNSUPPORTED_MEDIA_TYPE');
    // A body that names no type at all is refused too; no body and no type is fine.
    const untyped = await t
      .http()
      .post('/api/v1/auth/login')
      .set('Content-Length', '2')
      .serialize(() => '{}')
      .send('{}')
      .unset('Content-Type');
    expectError(untyped, 415, 'UNSUPPORTED_MEDIA_TYPE');
    expectError(await t.http().post('/api/v1/auth/refresh'), 401, 'INVALID_TOKEN');
  });

  it('routes a percent-encoded path as its decoded spelling', async () => {
    expectError(
      await t.http().post('/api/v1/auth/%6Cogin').send({ email: 'nobody@example.com' }),
      400,
      'LOGIN_FAILED',
    );
  });

  it('keeps idle connections open longer than a load balancer does (72 s)', async () => {
    const server = t.app.getHttpServer() as Server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      // fetch keeps its connection alive (supertest asks for Connection: close).
      const response = await fetch(`http://127.0.0.1:${port}/api/v1/health`);
      await response.text();
      expect(response.headers.get('keep-alive')).toBe('timeout=72');
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('answers a body over 5 MB with 413 PAYLOAD_TOO_LARGE', async () => {
    const body = JSON.stringify({ email: 'a@example.com', password: 'x'.repeat(5 * 1024 * 1024) });
    const response = await t
      .http()
      .post('/api/v1/auth/login')
      .set('Content-Type', 'application/json')
      .send(body);
    expectError(response, 413, 'PAYLOAD_TOO_LARGE');
  });

  it('accepts a body just under 5 MB and judges its content', async () => {
    const body = JSON.stringify({
      email: 'a@example.com',
      password: 'x'.repeat(5 * 1024 * 1024 - 100),
    });
    expectError(
      await t.http().post('/api/v1/auth/login').set('Content-Type', 'application/json').send(body),
      400,
      'LOGIN_FAILED',
    );
  });

  it('answers bad JSON on register with 400 VALIDATION_ERROR and no library text', async () => {
    const response = await t
      .http()
      .post('/api/v1/auth/register')
      .set('Content-Type', 'application/json')
      .send('{"email": ');
    expectError(response, 400, 'VALIDATION_ERROR');
    expect(response.body.message).toBe('The request body is not valid JSON');
    expect(response.body.details).toEqual([
      { field: 'body', message: 'The request body is not valid JSON' },
    ]);
  });

  it.each([
    ['/api/v1/auth/reset-password', '{"email": "a@example.com"'],
    ['/api/v1/auth/verify-email', '{token: 1}'],
    ['/api/v1/email/forgot-password', '\u0000'],
  ])('answers bad JSON on %s with details naming the body', async (path, text) => {
    const response = await t.http().post(path).set('Content-Type', 'application/json').send(text);
    expectError(response, 400, 'VALIDATION_ERROR');
    expect(response.body.details).toEqual([
      { field: 'body', message: 'The request body is not valid JSON' },
    ]);
    expect(JSON.stringify(response.body)).not.toMatch(/Unexpected|position|SyntaxError/);
  });

  it('answers a JSON body that is not an object with details naming the body', async () => {
    const response = await t
      .http()
      .post('/api/v1/auth/register')
      .set('Content-Type', 'application/json')
      .send('"just a string"');
    expectError(response, 400, 'VALIDATION_ERROR');
    expect(response.body.details).toEqual([
      { field: 'body', message: 'The request body must be a JSON object' },
    ]);
  });

  it('sends security headers and no X-Powered-By', async () => {
    const response = await t.http().get('/api/v1/health').expect(200);
    expect(response.headers['x-powered-by']).toBeUndefined();
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    expect(response.headers['content-security-policy']).toBe(
      "default-src 'none';frame-ancestors 'none'",
    );
    expect(response.headers['x-frame-options']).toBe('DENY');
    expect(response.headers['referrer-policy']).toBe('no-referrer');
    expect(response.headers['strict-transport-security']).toMatch(/^max-age=\d+/);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.headers['etag']).toBeUndefined();
    // No Origin, no browser: no CORS headers, but caches are told the answer varies by Origin.
    expect(response.headers['vary']).toBe('Origin');
    expect(response.headers['access-control-allow-credentials']).toBeUndefined();
  });

  it('allows credentialed CORS for a configured origin only', async () => {
    const allowed = await t
      .http()
      .options('/api/v1/auth/login')
      .set('Origin', APP_ORIGIN)
      .set('Access-Control-Request-Method', 'POST')
      .set('Access-Control-Request-Headers', 'content-type');
    expect(allowed.status).toBeLessThan(300);
    expect(allowed.headers['access-control-allow-origin']).toBe(APP_ORIGIN);
    expect(allowed.headers['access-control-allow-credentials']).toBe('true');
    // The same values, spelled alike, on either platform.
    expect(allowed.headers).toMatchObject({
      'access-control-allow-methods': 'GET, POST, PUT, PATCH, DELETE, OPTIONS',
      'access-control-allow-headers': 'Content-Type, Accept, Authorization',
      'access-control-max-age': '600',
    });

    const foreign = await t
      .http()
      .options('/api/v1/auth/login')
      .set('Origin', 'https://evil.example.net')
      .set('Access-Control-Request-Method', 'POST');
    expect(foreign.headers['access-control-allow-origin']).toBeUndefined();
    const read = await t
      .http()
      .get('/api/v1/auth/verify-token')
      .set('Origin', 'https://evil.example.net')
      .set('Cookie', `access_token=${session.access}`);
    expect(read.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('tells caches to keep no answer of the API: tokens, users, sessions, errors', async () => {
    const login = await t
      .http()
      .post('/api/v1/auth/login')
      .set('Origin', APP_ORIGIN)
      .send({ email: session.credentials.email, password: PASSWORD })
      .expect(200);
    const refresh = login.headers['set-cookie'] as unknown as string[];
    const answers = [
      login,
      await t
        .http()
        .post('/api/v1/auth/refresh')
        .set('Origin', APP_ORIGIN)
        .set('Cookie', refresh.map((cookie) => cookie.split(';')[0]).join('; ')),
      await t.http().get('/api/v1/users/me').set('Authorization', `Bearer ${session.access}`),
      await t.http().get('/api/v1/auth/session').set('Cookie', `access_token=${session.access}`),
      await t.http().get('/api/v1/auth/verify-token'),
      await t.http().get('/api/v1/health'),
      await t.http().get('/api/v1/nowhere'),
    ];
    expect(answers.map((answer) => answer.headers['cache-control'])).toEqual(
      answers.map(() => 'no-store'),
    );
    expect(answers[1].status).toBe(200);
  });

  it.each([
    '/.well-known/jwks.json',
    '/api/v1/.well-known/jwks.json',
    '/.well-known/oauth-authorization-server',
  ])('lets any page read %s, without credentials, and caches keep it', async (path) => {
    for (const origin of [APP_ORIGIN, 'https://verifier.example.org']) {
      const response = await t.http().get(path).set('Origin', origin).expect(200);
      expect(response.headers['access-control-allow-origin']).toBe('*');
      expect(response.headers['access-control-allow-credentials']).toBeUndefined();
      expect(response.headers['cache-control']).toBe('public, max-age=300');
    }
  });

  it('challenges a route that takes an access token as RFC 6750 says, and no other', async () => {
    const none = await t.http().get('/api/v1/auth/verify-token');
    expectError(none, 401, 'INVALID_TOKEN');
    expect(none.headers['www-authenticate']).toBe('Bearer');
    const refused = await t
      .http()
      .get('/api/v1/users/me')
      .set('Authorization', `Bearer ${session.access}x`);
    expectError(refused, 401, 'INVALID_TOKEN');
    expect(refused.headers['www-authenticate']).toBe(
      'Bearer error="invalid_token", error_description="The access token is missing or invalid"',
    );
    const byCookie = await t
      .http()
      .post('/api/v1/auth/logout')
      .set('Origin', APP_ORIGIN)
      .set('Cookie', 'access_token=nonsense');
    expect(byCookie.headers['www-authenticate']).toMatch(/^Bearer error="invalid_token"/);
    // Refresh takes only its cookie: no bearer scheme to announce.
    const refresh = await t.http().post('/api/v1/auth/refresh').set('Origin', APP_ORIGIN);
    expectError(refresh, 401, 'INVALID_TOKEN');
    expect(refresh.headers['www-authenticate']).toBeUndefined();
  });

  it('answers a preflight without Access-Control-Request-Method like any other, not 400', async () => {
    const response = await t.http().options('/api/v1/auth/login').set('Origin', APP_ORIGIN);
    expect(response.status).toBe(204);
    expect(response.headers['access-control-allow-origin']).toBe(APP_ORIGIN);
  });

  it('refuses a non-CORS OPTIONS request with a body that is not JSON with the envelope', async () => {
    for (const path of ['/api/v1/auth/login', '/api/v1/nowhere']) {
      const response = await t.http().options(path).set('Content-Type', 'text/plain').send('hello');
      expectError(response, 415, 'UNSUPPORTED_MEDIA_TYPE');
      expect(response.headers['x-request-id']).toBeDefined();
    }
  });

  it('answers a request the HTTP parser refuses with the envelope, not a library body', async () => {
    const server = t.app.getHttpServer() as Server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const raw = await new Promise<string>((resolve, reject) => {
        const socket = connect(port, '127.0.0.1', () =>
          socket.write(
            'POST /api/v1/auth/login HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n',
          ),
        );
        let text = '';
        socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
        socket.on('end', () => resolve(text));
        socket.on('error', reject);
      });
      expect(raw).toMatch(/^HTTP\/1\.1 400 /);
      const body = JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4)) as Record<string, unknown>;
      expect(body).toEqual({
        success: false,
        message: 'The request is malformed',
        error: 'VALIDATION_ERROR',
      });
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  describe('what a browser sends: the body is read whatever the Origin', () => {
    const FOREIGN = 'https://evil.example.net';
    const browserPost = (path: string, origin: string) =>
      t
        .http()
        .post(path)
        .set('Origin', origin)
        .set('Sec-Fetch-Site', origin === APP_ORIGIN ? 'same-site' : 'cross-site')
        .set('Sec-Fetch-Mode', 'cors');

    it.each([
      ["the service's own origin (its link pages)", 'http://localhost:3000'],
      ['a foreign origin', FOREIGN],
      ['the app origin', APP_ORIGIN],
    ])('reads the JSON body posted from %s', async (_from, origin) => {
      const verify = await browserPost('/api/v1/auth/verify-email', origin).send({ token: 'abc' });
      expectError(verify, 401, 'INVALID_TOKEN');
      const login = await browserPost('/api/v1/auth/login', origin).send({
        email: session.credentials.email,
        password: 'not the password',
      });
      expectError(login, 401, 'LOGIN_FAILED');
    });

    it('refuses a cross-site text/plain login (a form or no-cors post) with 415', async () => {
      const response = await browserPost('/api/v1/auth/login', FOREIGN)
        .set('Content-Type', 'text/plain')
        .send(JSON.stringify({ email: session.credentials.email, password: PASSWORD }));
      expectError(response, 415, 'UNSUPPORTED_MEDIA_TYPE');
      expect(response.headers['set-cookie']).toBeUndefined();
    });

    it('reads the cookies of a request from a foreign origin (and still refuses its changes)', async () => {
      const read = await t
        .http()
        .get('/api/v1/auth/verify-token')
        .set('Origin', FOREIGN)
        .set('Sec-Fetch-Site', 'cross-site')
        .set('Cookie', `access_token=${session.access}`);
      expect(read.status).toBe(200);
      expect(read.headers['access-control-allow-origin']).toBeUndefined();
      expectError(
        await browserPost('/api/v1/auth/logout', FOREIGN).set(
          'Cookie',
          `access_token=${session.access}`,
        ),
        403,
        'FORBIDDEN_ORIGIN',
      );
    });
  });

  describe('cookie-authenticated changes from a foreign origin', () => {
    it('refuses logout with 403 FORBIDDEN_ORIGIN and keeps the session', async () => {
      const response = await t
        .http()
        .post('/api/v1/auth/logout')
        .set('Origin', 'https://evil.example.net')
        .set('Cookie', `access_token=${session.access}`);
      expectError(response, 403, 'FORBIDDEN_ORIGIN');
      await t
        .http()
        .get('/api/v1/auth/verify-token')
        .set('Cookie', `access_token=${session.access}`)
        .expect(200);
    });

    it('refuses refresh from a foreign origin and a cross-site fetch without Origin', async () => {
      expectError(
        await t
          .http()
          .post('/api/v1/auth/refresh')
          .set('Origin', 'https://evil.example.net')
          .set('Cookie', `refresh_token=${session.refresh}`),
        403,
        'FORBIDDEN_ORIGIN',
      );
      expectError(
        await t
          .http()
          .post('/api/v1/auth/verify-token')
          .set('Sec-Fetch-Site', 'cross-site')
          .set('Cookie', `access_token=${session.access}`),
        403,
        'FORBIDDEN_ORIGIN',
      );
    });

    it('lets the configured app origin and bearer-authenticated requests through', async () => {
      await t
        .http()
        .post('/api/v1/auth/verify-token')
        .set('Origin', APP_ORIGIN)
        .set('Cookie', `access_token=${session.access}`)
        .expect(200);
      await t
        .http()
        .post('/api/v1/auth/verify-token')
        .set('Origin', 'https://evil.example.net')
        .set('Authorization', `Bearer ${session.access}`)
        .expect(200);
    });
  });
});
