import { cookiesOf, expectError, registerUser, uniqueUser } from './support/auth-helpers';
import { APP_ORIGIN, TestApp, startTestApp } from './support/test-app';

describe('POST /api/v1/auth/login', () => {
  let t: TestApp;
  let account: { email: string; username: string; password: string };

  beforeAll(async () => {
    t = await startTestApp();
    account = (await registerUser(t, uniqueUser('Login'))).credentials;
  });
  afterAll(() => t.close());

  const login = (body: unknown) =>
    t
      .http()
      .post('/api/v1/auth/login')
      .send(body as object);

  it('answers 200 with the user and sets both cookies with every attribute', async () => {
    const response = await login({ email: account.email, password: account.password }).expect(200);
    expect(response.body).toEqual({
      success: true,
      message: 'Login successful',
      data: {
        user: {
          id: expect.stringMatching(/^user_\d+$/),
          email: account.email,
          username: account.username,
          role: 'user',
          email_verified: false,
          name: null,
          picture: null,
          created_at: expect.any(String),
          updated_at: expect.any(String),
        },
        // ACCESS_TOKEN_TTL's default: the page cannot read the cookie's lifetime.
        expires_in: 900,
      },
    });
    const cookies = cookiesOf(response);
    const access = cookies.access_token.raw.split(/;\s*/);
    const refresh = cookies.refresh_token.raw.split(/;\s*/);
    expect(access).toEqual(
      expect.arrayContaining(['Max-Age=900', 'Path=/', 'HttpOnly', 'Secure', 'SameSite=Lax']),
    );
    expect(refresh).toEqual(
      expect.arrayContaining([
        'Max-Age=604800',
        'Path=/api/v1/auth',
        'HttpOnly',
        'Secure',
        'SameSite=Lax',
      ]),
    );
    expect(cookies.access_token.value.split('.')).toHaveLength(3);
    expect(cookies.refresh_token.value.split('.')).toHaveLength(3);
  });

  it('matches the email case-insensitively and with surrounding spaces', async () => {
    await login({ email: ` ${account.email.toUpperCase()} `, password: account.password }).expect(
      200,
    );
  });

  it('compares the password exactly as typed', async () => {
    expectError(
      await login({ email: account.email, password: ` ${account.password}` }),
      401,
      'LOGIN_FAILED',
    );
    expectError(
      await login({ email: account.email, password: account.password.toUpperCase() }),
      401,
      'LOGIN_FAILED',
    );
  });

  it('answers a wrong password and an unknown email alike: 401 LOGIN_FAILED', async () => {
    const wrong = await login({ email: account.email, password: 'not the password' });
    const unknown = await login({ email: 'nobody@example.com', password: 'not the password' });
    expectError(wrong, 401, 'LOGIN_FAILED');
    expectError(unknown, 401, 'LOGIN_FAILED');
    expect(unknown.body).toEqual(wrong.body);
    expect(wrong.headers['set-cookie']).toBeUndefined();
  });

  it('refuses a password that only shares the first 72 bytes (no bcrypt truncation)', async () => {
    const long = uniqueUser();
    const password72 = 'p'.repeat(72);
    await registerUser(t, { ...long, password: password72 });
    await login({ email: long.email, password: password72 }).expect(200);
    expectError(
      await login({ email: long.email, password: `${password72}extra` }),
      401,
      'LOGIN_FAILED',
    );
  });

  it.each([
    ['an empty body', undefined],
    ['a missing password', { email: 'a@example.com' }],
    ['a wrong type', { email: 'a@example.com', password: 123456 }],
    ['an unknown field', { email: 'a@example.com', password: 'secret', remember: true }],
    ['an array', [1, 2]],
  ])('answers %s with 400 LOGIN_FAILED', async (_label, body) => {
    expectError(await login(body), 400, 'LOGIN_FAILED');
  });

  it('answers invalid JSON with 400 LOGIN_FAILED', async () => {
    const response = await t
      .http()
      .post('/api/v1/auth/login')
      .set('Content-Type', 'application/json')
      .send('{"email": "a@example.com",');
    expectError(response, 400, 'LOGIN_FAILED');
    expect(response.body.message).toBe('The request body is not valid JSON');
    expect(response.body.details).toEqual([
      { field: 'body', message: 'The request body is not valid JSON' },
    ]);
  });

  it('gives non-browser clients the body-token shape on request, without cookies', async () => {
    const response = await login({ email: account.email, password: account.password })
      .set('X-Token-Delivery', 'body')
      .expect(200);
    expect(response.body).toEqual({
      access_token: expect.any(String),
      refresh_token: expect.any(String),
      token_type: 'Bearer',
      expires_in: 900,
      user: {
        id: expect.any(String),
        email: account.email,
        name: account.username,
        email_verified: false,
        picture: null,
        created_at: expect.any(String),
        updated_at: expect.any(String),
      },
    });
    expect(response.headers['set-cookie']).toBeUndefined();
    expect(response.headers['cache-control']).toBe('no-store');
    await t
      .http()
      .get('/api/v1/auth/verify-token')
      .set('Authorization', `Bearer ${response.body.access_token}`)
      .expect(200);
  });

  describe('a request a browser sent never gets the tokens in the body', () => {
    const asBrowser = (request: ReturnType<typeof login>, headers: Record<string, string>) =>
      request.set(headers).set('X-Token-Delivery', 'body');

    it.each([
      ['Origin of the app', { Origin: APP_ORIGIN }],
      ['Origin of another site', { Origin: 'https://evil.example.net' }],
      ['Sec-Fetch-Site only', { 'Sec-Fetch-Site': 'same-origin', 'Sec-Fetch-Mode': 'cors' }],
    ])(
      'refuses login with X-Token-Delivery: body and %s (400, no session)',
      async (_l, headers) => {
        const before = await sessionCount();
        const response = await asBrowser(
          login({ email: account.email, password: account.password }),
          headers,
        );
        expectError(response, 400, 'VALIDATION_ERROR');
        expect(response.body.details).toEqual([
          { field: 'X-Token-Delivery', message: expect.stringMatching(/non-browser/) },
        ]);
        expect(response.body).not.toHaveProperty('refresh_token');
        expect(response.headers['set-cookie']).toBeUndefined();
        expect(await sessionCount()).toBe(before);
      },
    );

    it('refuses refresh with X-Token-Delivery: body from a page and leaves its token alive', async () => {
      const cookies = cookiesOf(
        await login({ email: account.email, password: account.password }).expect(200),
      );
      const refresh = () =>
        t
          .http()
          .post('/api/v1/auth/refresh')
          .set('Cookie', `refresh_token=${cookies.refresh_token.value}`)
          .set('Origin', APP_ORIGIN);
      const refused = await refresh().set('X-Token-Delivery', 'body');
      expectError(refused, 400, 'VALIDATION_ERROR');
      expect(refused.body).not.toHaveProperty('access_token');
      await refresh().expect(200);
    });

    it('keeps body delivery for a server-side client (Node fetch sends Sec-Fetch-Mode alone)', async () => {
      const response = await login({ email: account.email, password: account.password })
        .set('Sec-Fetch-Mode', 'cors')
        .set('X-Token-Delivery', 'body')
        .expect(200);
      expect(response.body.refresh_token).toEqual(expect.any(String));
    });

    it('leaves X-Token-Delivery out of the headers a page may send cross-origin', async () => {
      const preflight = await t
        .http()
        .options('/api/v1/auth/refresh')
        .set('Origin', APP_ORIGIN)
        .set('Access-Control-Request-Method', 'POST')
        .set('Access-Control-Request-Headers', 'x-token-delivery');
      expect(preflight.headers['access-control-allow-origin']).toBe(APP_ORIGIN);
      expect(preflight.headers['access-control-allow-headers']).not.toMatch(/x-token-delivery/i);
    });
  });

  async function sessionCount(): Promise<number> {
    const rows: Array<{ n: number | string }> = await t.dataSource.query(
      'SELECT COUNT(*) AS n FROM refresh_sessions',
    );
    return Number(rows[0].n);
  }
});
