import { cookiesOf, expectError, uniqueUser } from './support/auth-helpers';
import { eventually } from './support/shared-redis';
import { TestApp, startTestApp } from './support/test-app';

describe('what the database holds', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  async function dump(): Promise<string> {
    const tables = ['users', 'refresh_sessions', 'verification_tokens', 'email_codes'];
    const rows = await Promise.all(
      tables.map((table) => t.dataSource.query(`SELECT * FROM ${table}`)),
    );
    return JSON.stringify(rows);
  }

  it('never holds a password, a refresh token or an emailed token in plain form', async () => {
    const credentials = { ...uniqueUser(), password: 'Plain-Password-42' };
    await t.http().post('/api/v1/auth/register').send(credentials).expect(201);
    const mail = (await t.outbox()).find((received) => received.to === credentials.email);
    const verificationToken = mail?.token;
    expect(verificationToken).toHaveLength(43);

    const login = await t
      .http()
      .post('/api/v1/auth/login')
      .send({ email: credentials.email, password: credentials.password })
      .expect(200);
    const refresh = cookiesOf(login).refresh_token.value;
    const rotated = await t
      .http()
      .post('/api/v1/auth/refresh')
      .set('Cookie', `refresh_token=${refresh}`)
      .expect(200);
    const successor = cookiesOf(rotated).refresh_token.value;
    const jtis = [refresh, successor].map(
      (token) =>
        (JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()) as { jti: string })
          .jti,
    );

    // A sign-in code by email: neither its six digits nor its link's token.
    await t.http().post('/api/v1/auth/email-code').send({ email: credentials.email }).expect(200);
    const codeMail = (await t.outbox())
      .filter((received) => received.to === credentials.email)
      .at(-1)!;
    const code = /\n(\d{6})\n/.exec(codeMail.text)![1];

    const everything = await dump();
    for (const secret of [
      credentials.password,
      refresh,
      successor,
      ...jtis,
      verificationToken!,
      codeMail.token,
      // A whole value: six digits may turn up inside a hash by chance.
      `"${code}"`,
      `:${code}`,
    ]) {
      expect(everything).not.toContain(secret);
    }
    expect(everything).toMatch(/\$2[aby]\$04\$/);
  });

  it('keeps the schema it was migrated to, with case-insensitive identities unique', async () => {
    const migrations = await t.dataSource.query('SELECT name FROM migrations ORDER BY id');
    expect(migrations).toEqual([
      { name: 'InitialSchema1763769600000' },
      { name: 'PurgeIndexes1763856000000' },
      { name: 'RetiredSessionsIndex1763942400000' },
      { name: 'AuditEvents1764028800000' },
      { name: 'LiveSessionsIndexes1764115200000' },
      { name: 'AccountProfile1764201600000' },
      { name: 'SessionDetails1764288000000' },
      { name: 'DisabledAccounts1764374400000' },
      { name: 'SessionAuthentication1764460800000' },
      { name: 'SecondFactor1764547200000' },
      { name: 'Passkeys1764633600000' },
      { name: 'EmailCodes1764720000000' },
      { name: 'IdentityProviders1764806400000' },
      { name: 'Reauthentication1764892800000' },
      { name: 'SealedFederationFlows1764979200000' },
      { name: 'UserListingIndexes1765065600000' },
      { name: 'Webhooks1765152000000' },
      { name: 'Organizations1765238400000' },
      { name: 'SessionModuleClaims1765324800000' },
      { name: 'OrganizationMemberIndexes1765411200000' },
      { name: 'MailQueue1765497600000' },
      { name: 'ChallengeProvider1765584000000' },
    ]);
    const credentials = uniqueUser();
    await t.http().post('/api/v1/auth/register').send(credentials).expect(201);
    const insert = t.dataSource.query(
      `INSERT INTO users (id, email, email_normalized, username, username_normalized, password_hash, role, email_verified, token_version, created_at, updated_at)
       VALUES ('user_1', 'x@example.com', ?, 'other', 'other', 'x', 'user', 0, 0, '2026-01-01 00:00:00', '2026-01-01 00:00:00')`,
      [credentials.email.toLowerCase()],
    );
    await expect(insert).rejects.toThrow();
  });

  it('runs on the database CI asked for', () => {
    const expected = process.env.TEST_DATABASE_URL ? 'mysql' : 'better-sqlite3';
    expect(t.dataSource.options.type).toBe(expected);
  });

  it('answers 503 in the envelope when the database is gone', async () => {
    await t.http().get('/api/v1/health/ready').expect(200);
    await t.dataSource.destroy();
    try {
      // Readiness answers from a check made every second in the background.
      await eventually(
        async () => (await t.http().get('/api/v1/health/ready')).status === 503,
        2500,
      );
      expectError(await t.http().get('/api/v1/health/ready'), 503, 'SERVICE_UNAVAILABLE');
      // Liveness: the process itself is fine, and restarting it would not bring MySQL back.
      await t.http().get('/api/v1/health').expect(200);
    } finally {
      await t.dataSource.initialize();
    }
  });
});
