import { Response } from 'supertest';
import { User } from '../src/users/user.entity';
import { expectError, uniqueUser } from './support/auth-helpers';
import { TestApp, startTestApp } from './support/test-app';

describe('POST /api/v1/auth/register', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  const register = (body: unknown) =>
    t
      .http()
      .post('/api/v1/auth/register')
      .send(body as object);

  it('creates an unverified user and answers 201 with the public fields only', async () => {
    const credentials = uniqueUser('Ann');
    const response = await register({
      ...credentials,
      email: `  ${credentials.email.toUpperCase()} `,
    });

    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      success: true,
      message: expect.stringContaining('Registration successful'),
      data: {
        user: {
          id: expect.stringMatching(/^user_\d{18}$/),
          email: credentials.email.toUpperCase(),
          username: credentials.username,
          role: 'user',
          email_verified: false,
          name: null,
          picture: null,
          created_at: expect.any(String),
          updated_at: expect.any(String),
        },
      },
    });
    expect(new Date(response.body.data.user.created_at).toISOString()).toBe(
      response.body.data.user.created_at,
    );
    expect(response.headers['set-cookie']).toBeUndefined();
  });

  it('gives ids that do not follow from each other', async () => {
    const a = await register(uniqueUser()).expect(201);
    const b = await register(uniqueUser()).expect(201);
    const idOf = (body: { data: { user: { id: string } } }) => BigInt(body.data.user.id.slice(5));
    const gap = idOf(b.body) - idOf(a.body);
    expect(gap === 1n || gap === -1n).toBe(false);
  });

  it('refuses an email already registered in another case with 409', async () => {
    const credentials = uniqueUser();
    await register(credentials).expect(201);
    const response = await register({
      ...uniqueUser(),
      email: credentials.email.toUpperCase(),
    });
    expectError(response, 409, 'REGISTRATION_FAILED');
    expect(response.body.message).toMatch(/email/i);
    // The field is named, so a form marks it without reading the message.
    expect(response.body.details).toEqual([{ field: 'email', message: response.body.message }]);
  });

  it('refuses a username already taken in another case with 409', async () => {
    const credentials = uniqueUser();
    await register(credentials).expect(201);
    const response = await register({
      ...uniqueUser(),
      username: credentials.username.toUpperCase(),
    });
    expectError(response, 409, 'REGISTRATION_FAILED');
    expect(response.body.message).toMatch(/username/i);
    expect(response.body.details).toEqual([{ field: 'username', message: response.body.message }]);
  });

  it('keeps addresses apart that a collation or case folding would merge', async () => {
    const tag = `${process.pid}${Date.now()}`;
    for (const local of ['jose', 'josé', 'mike', 'mıke']) {
      await register({
        email: `${local}${tag}@example.com`,
        username: `u${Buffer.from(local).toString('hex')}${tag}`.slice(0, 32),
        password: 'secret-pass',
      }).expect(201);
    }
  });

  it.each([
    ['a bad email', { email: 'not-an-email' }, 'email'],
    ['a short password', { password: '12345' }, 'password'],
    ['a missing username', { username: undefined }, 'username'],
    ['a missing email', { email: undefined }, 'email'],
    ['a username with spaces', { username: 'ann smith' }, 'username'],
    ['a two-letter username', { username: 'an' }, 'username'],
    ['a password over 72 bytes', { password: 'é'.repeat(37) }, 'password'],
    [
      'a header line in a quoted address',
      { email: '"x\r\nBcc: thief@evil.example"@example.com' },
      'email',
    ],
    ['a comma in a quoted address', { email: '"ann,thief@evil.example"@example.com' }, 'email'],
    ['an address with angle brackets', { email: 'Ann <ann@example.com>' }, 'email'],
  ])('answers %s with 400 REGISTRATION_FAILED and details', async (_label, override, field) => {
    const response = await register({ ...uniqueUser(), ...override });
    expectError(response, 400, 'REGISTRATION_FAILED');
    expect(response.body.details).toEqual(
      expect.arrayContaining([{ field, message: expect.stringContaining(field) }]),
    );
    // Two rules may word one fault alike: a client shows each message once.
    const said = (response.body.details as Array<{ field: string; message: string }>).map(
      (detail) => `${detail.field}: ${detail.message}`,
    );
    expect(said).toEqual([...new Set(said)]);
  });

  it('accepts a password of exactly 72 bytes and of 6 characters', async () => {
    await register({ ...uniqueUser(), password: 'é'.repeat(36) }).expect(201);
    await register({ ...uniqueUser(), password: 'kx7#qm' }).expect(201);
  });

  /** 400 REGISTRATION_FAILED naming the password, with a reason and without the password. */
  const expectRefusedPassword = (response: Response, password: string, reason: RegExp) => {
    expectError(response, 400, 'REGISTRATION_FAILED');
    expect(response.body.details).toEqual([{ field: 'password', message: expect.any(String) }]);
    expect(response.body.details[0].message).toMatch(reason);
    expect(JSON.stringify(response.body).toLowerCase()).not.toContain(password.toLowerCase());
  };

  it.each(['password123', 'QWERTY123', 'IloveYou', 'abcdef', 'Summer2024', 'ｐａｓｓｗｏｒｄ'])(
    'refuses the common password %s, in any case, and creates no account',
    async (password) => {
      const credentials = { ...uniqueUser(), password };
      expectRefusedPassword(await register(credentials), password, /too common/);
      await register({ ...credentials, password: 'a-Better-pass-9' }).expect(201);
    },
  );

  it('refuses the account’s own email, its local part and its username, in any case', async () => {
    const credentials = uniqueUser('Identity');
    const localPart = credentials.email.split('@')[0];
    for (const password of [
      credentials.email,
      credentials.email.toUpperCase(),
      localPart,
      localPart.toUpperCase(),
      credentials.username,
      credentials.username.toLowerCase(),
    ]) {
      expectRefusedPassword(
        await register({ ...credentials, password }),
        password,
        /email address.*username/,
      );
    }
    // Another person's name is not this account's: only its own identifiers are refused.
    await register({ ...uniqueUser(), password: credentials.username }).expect(201);
    // A password that merely contains them is the length rule's and the list's business.
    await register({ ...credentials, password: `${credentials.username}-9z!` }).expect(201);
  });

  it('compares the username as it is stored, trimmed, whatever the email', async () => {
    const credentials = uniqueUser();
    const response = await register({
      ...credentials,
      username: `  ${credentials.username} `,
      email: `other${credentials.email}`,
      password: credentials.username.toUpperCase(),
    });
    expectRefusedPassword(response, credentials.username, /username/);
  });

  it('still refuses a password over 72 bytes, not on any list, as too long', async () => {
    const response = await register({ ...uniqueUser(), password: 'ü'.repeat(37) });
    expectError(response, 400, 'REGISTRATION_FAILED');
    expect(response.body.details).toEqual([
      { field: 'password', message: 'password must be at most 72 bytes long' },
    ]);
  });

  it.each([
    ['an unknown field', { isAdmin: true }, 'isAdmin'],
    ['a wrong type', { email: 42 }, 'email'],
    ['an unknown nested field', { emailConfig: { colour: 'red' } }, 'emailConfig.colour'],
    ['role set by the client', { role: 'admin' }, 'role'],
  ])('answers %s with 400 VALIDATION_ERROR', async (_label, override, field) => {
    const response = await register({ ...uniqueUser(), ...override });
    expectError(response, 400, 'VALIDATION_ERROR');
    expect(response.body.details).toEqual(
      expect.arrayContaining([expect.objectContaining({ field })]),
    );
  });

  it('refuses a body nested thousands of levels deep with 400, not a crash', async () => {
    const deep = `{"email":${'['.repeat(3000)}${']'.repeat(3000)},"password":"x","username":"deep"}`;
    const response = await t
      .http()
      .post('/api/v1/auth/register')
      .set('Content-Type', 'application/json')
      .send(deep);
    expectError(response, 400, 'VALIDATION_ERROR');
    const login = await t
      .http()
      .post('/api/v1/auth/login')
      .set('Content-Type', 'application/json')
      .send(deep.replace(',"username":"deep"', ''));
    expectError(login, 400, 'LOGIN_FAILED');
  });

  it('refuses a __proto__ key and writes nothing', async () => {
    const credentials = uniqueUser();
    const body = `{"email":"${credentials.email}","password":"${credentials.password}","username":"${credentials.username}","__proto__":{"role":"admin"}}`;
    const response = await t
      .http()
      .post('/api/v1/auth/register')
      .set('Content-Type', 'application/json')
      .send(body);
    expectError(response, 400, 'VALIDATION_ERROR');
    expect(await t.dataSource.getRepository(User).countBy({ username: credentials.username })).toBe(
      0,
    );
  });

  it('accepts emailConfig with an allowed applicationUrl and a locale', async () => {
    await register({
      ...uniqueUser(),
      emailConfig: { applicationUrl: 'http://localhost:5173/verify', locale: 'en' },
    }).expect(201);
    const mail = (await t.outbox()).at(-1);
    expect(mail?.link).toMatch(/^http:\/\/localhost:5173\/verify\?token=[\w-]{43}$/);
  });

  it('refuses a foreign applicationUrl with VALIDATION_ERROR and creates no account', async () => {
    const credentials = uniqueUser();
    const response = await register({
      ...credentials,
      emailConfig: { applicationUrl: 'https://evil.example.net/steal' },
    });
    expectError(response, 400, 'VALIDATION_ERROR');
    expect(response.body.details).toEqual([
      expect.objectContaining({ field: 'emailConfig.applicationUrl' }),
    ]);
    expect(await t.dataSource.getRepository(User).countBy({ username: credentials.username })).toBe(
      0,
    );
  });

  it('writes the verification mail to the stored address with a link to the service', async () => {
    const credentials = uniqueUser();
    const before = (await t.outbox()).length;
    await register(credentials).expect(201);
    const mails = await t.outbox();
    expect(mails).toHaveLength(before + 1);
    const mail = mails.find((received) => received.to === credentials.email);
    expect(mail?.link).toMatch(
      /^http:\/\/localhost:3000\/api\/v1\/auth\/verify-email\?token=[\w-]{43}$/,
    );
  });

  it('keeps exactly one account when the same email registers in parallel', async () => {
    const credentials = uniqueUser('race');
    const attempts = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        register({
          email: i % 2 ? credentials.email.toUpperCase() : credentials.email,
          username: `${credentials.username}r${i}`,
          password: credentials.password,
        }),
      ),
    );
    const statuses = attempts.map((response) => response.status).sort();
    expect(statuses).toEqual([201, 409, 409, 409, 409, 409, 409, 409]);
    const rows = await t.dataSource
      .getRepository(User)
      .countBy({ emailNormalized: credentials.email.toLowerCase() });
    expect(rows).toBe(1);
  });
});
