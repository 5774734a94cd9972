import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from './config.loader';

const SECRETS = {
  JWT_ACCESS_SECRET: 'a'.repeat(32),
  JWT_REFRESH_SECRET: 'b'.repeat(32),
};
const MFA_KEY = { MFA_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64') };

describe('loadConfig', () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'config-spec-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('applies the documented defaults', () => {
    const config = loadConfig({ ...SECRETS, DATA_DIR: dataDir });
    expect(config.app).toMatchObject({
      port: 3000,
      publicUrl: 'http://localhost:3000',
      appName: 'Auth Service',
      corsOrigins: ['http://localhost:5173'],
      appOrigins: ['http://localhost:5173'],
      trustProxy: false,
      apiDocs: true,
    });
    expect(config.database.url).toBe('sqlite:./data/auth.sqlite');
    expect(config.jwt).toMatchObject({
      issuer: 'http://localhost:3000',
      audience: 'http://localhost:3000',
      accessTtl: 900,
      refreshTtl: 604800,
      refreshReuseGrace: 10,
      sessionMaxAge: 2592000,
    });
    expect(config.cookies).toEqual({ secure: true, sameSite: 'lax' });
    expect(config.throttle).toEqual({ ttl: 900, limit: 50, authLimit: 5 });
    expect(config.loginBackoff).toEqual({
      free: 5,
      baseSeconds: 1,
      maxSeconds: 900,
      resetSeconds: 900,
    });
    expect(config.log).toEqual({ level: 'info', readable: 'on-terminal' });
    expect(config.security).toEqual({
      bcryptCost: 10,
      passwordMinLength: 6,
      hashThreads: availableParallelism(),
      hashQueueLimit: 64 * availableParallelism(),
      userCacheTtl: 1,
      accountEnumerationProtection: false,
    });
    expect(config.mail).toMatchObject({
      smtpUrl: undefined,
      outboxDir: join(dataDir, 'mail'),
      from: 'no-reply@localhost',
      verificationTtl: 86400,
      resetTtl: 3600,
      emailChangeTtl: 3600,
      recipientLimit: 3,
      recipientWindow: 900,
    });
    expect(config.emailCode).toEqual({ enabled: true, ttl: 600, maxAttempts: 5 });
  });

  it('names the access tokens after PUBLIC_URL unless JWT_ISSUER, JWT_AUDIENCE and JWT_CLIENT_ID say otherwise', () => {
    const derived = loadConfig({
      ...SECRETS,
      DATA_DIR: dataDir,
      PUBLIC_URL: 'https://auth.example.com/',
    });
    expect(derived.jwt).toMatchObject({
      issuer: 'https://auth.example.com',
      audience: 'https://auth.example.com',
      clientId: 'auth-service',
    });
    const issuerOnly = loadConfig({
      ...SECRETS,
      DATA_DIR: dataDir,
      JWT_ISSUER: 'https://id.example',
    });
    expect(issuerOnly.jwt).toMatchObject({
      issuer: 'https://id.example',
      audience: 'https://id.example',
    });
    const both = loadConfig({
      ...SECRETS,
      DATA_DIR: dataDir,
      JWT_ISSUER: 'https://id.example',
      JWT_AUDIENCE: 'https://api.example',
      JWT_CLIENT_ID: 'shop-web',
    });
    expect(both.jwt).toMatchObject({
      issuer: 'https://id.example',
      audience: 'https://api.example',
      clientId: 'shop-web',
    });
  });

  it('derives PUBLIC_URL from PORT and APP_ORIGINS from CORS_ORIGINS', () => {
    const config = loadConfig({
      ...SECRETS,
      DATA_DIR: dataDir,
      PORT: '8080',
      CORS_ORIGINS: 'https://app.example.com/, http://localhost:4200',
    });
    expect(config.app.publicUrl).toBe('http://localhost:8080');
    expect(config.app.appOrigins).toEqual(['https://app.example.com', 'http://localhost:4200']);
  });

  it('accepts PORT=0, any free port', () => {
    expect(loadConfig({ ...SECRETS, DATA_DIR: dataDir, PORT: '0' }).app.port).toBe(0);
  });

  it('takes any positive SESSION_MAX_AGE, shorter or longer than REFRESH_TOKEN_TTL', () => {
    const read = (env: Record<string, string>) =>
      loadConfig({ ...SECRETS, DATA_DIR: dataDir, ...env }).jwt;
    expect(read({ SESSION_MAX_AGE: '2', REFRESH_TOKEN_TTL: '3600' })).toMatchObject({
      sessionMaxAge: 2,
      refreshTtl: 3600,
    });
    expect(read({ SESSION_MAX_AGE: '31536000' }).sessionMaxAge).toBe(31536000);
  });

  it.each([
    [{ PORT: 'abc' }, 'Invalid configuration: PORT must be an integer from 0 to 65535 (got "abc")'],
    [
      { SESSION_MAX_AGE: '0' },
      'Invalid configuration: SESSION_MAX_AGE must be an integer from 1 to 315360000 (got "0")',
    ],
    [
      { SESSION_MAX_AGE: '30d' },
      'Invalid configuration: SESSION_MAX_AGE must be an integer from 1 to 315360000 (got "30d")',
    ],
    [
      { SESSION_MAX_AGE: '-5' },
      'Invalid configuration: SESSION_MAX_AGE must be an integer from 1 to 315360000 (got "-5")',
    ],
    [
      { BCRYPT_COST: '40' },
      'Invalid configuration: BCRYPT_COST must be an integer from 4 to 15 (got "40")',
    ],
    [
      { COOKIE_SAMESITE: 'sometimes' },
      'Invalid configuration: COOKIE_SAMESITE must be one of lax, strict, none (got "sometimes")',
    ],
    [
      { COOKIE_SECURE: 'maybe' },
      'Invalid configuration: COOKIE_SECURE must be true or false (got "maybe")',
    ],
    [
      { DATABASE_URL: 'postgres://x' },
      'Invalid configuration: DATABASE_URL must be sqlite:<file>, sqlite::memory: or mysql://user:pass@host:3306/db',
    ],
    [
      { CORS_ORIGINS: 'not a url' },
      'Invalid configuration: CORS_ORIGINS must list http(s) origins separated by commas (got "not a url")',
    ],
    [
      { TRUST_PROXY: 'true' },
      'Invalid configuration: TRUST_PROXY must be a hop count or a list of proxy addresses, not "true" (that trusts any client)',
    ],
    [
      { JWT_ACCESS_SECRET: 'short' },
      'Invalid configuration: JWT_ACCESS_SECRET must be at least 32 characters long',
    ],
    [
      { JWT_REFRESH_SECRET: 'a'.repeat(32) },
      'Invalid configuration: JWT_REFRESH_SECRET must differ from JWT_ACCESS_SECRET',
    ],
    [
      { TRUST_PROXY: 'not-an-address' },
      'Invalid configuration: TRUST_PROXY must be a hop count or addresses, subnets or loopback/linklocal/uniquelocal (got "not-an-address")',
    ],
    [
      { COOKIE_SAMESITE: 'none', COOKIE_SECURE: 'false' },
      'Invalid configuration: COOKIE_SAMESITE can be none only with COOKIE_SECURE=true',
    ],
    [
      { METRICS_TOKEN: 'short' },
      'Invalid configuration: METRICS_TOKEN must be at least 32 characters',
    ],
    [
      { REDIS_URL: '127.0.0.1:6379' },
      'Invalid configuration: REDIS_URL must look like redis://[:password@]host:port[/db]',
    ],
    [
      { PASSWORD_MIN_LENGTH: '5' },
      'Invalid configuration: PASSWORD_MIN_LENGTH must be an integer from 6 to 72 (got "5")',
    ],
    [
      { DATABASE_SYNC: 'off' },
      'Invalid configuration: DATABASE_SYNC must be one of normal, full (got "off")',
    ],
    [
      { EMAIL_CHANGE_TTL: '59' },
      'Invalid configuration: EMAIL_CHANGE_TTL must be an integer from 60 to 86400 (got "59")',
    ],
    [
      { EMAIL_CHANGE_TTL: '1h' },
      'Invalid configuration: EMAIL_CHANGE_TTL must be an integer from 60 to 86400 (got "1h")',
    ],
    [
      { ACCOUNT_ENUMERATION_PROTECTION: 'yes' },
      'Invalid configuration: ACCOUNT_ENUMERATION_PROTECTION must be true or false (got "yes")',
    ],
    [
      { MAIL_RECIPIENT_LIMIT: '0' },
      'Invalid configuration: MAIL_RECIPIENT_LIMIT must be an integer from 1 to 100000 (got "0")',
    ],
    [
      { MAIL_RECIPIENT_WINDOW: '15m' },
      'Invalid configuration: MAIL_RECIPIENT_WINDOW must be an integer from 1 to 604800 (got "15m")',
    ],
    [
      { LOGIN_FAILURES_FREE: '0' },
      'Invalid configuration: LOGIN_FAILURES_FREE must be an integer from 1 to 1000 (got "0")',
    ],
    [
      { LOGIN_BACKOFF_BASE: '10', LOGIN_BACKOFF_MAX: '5' },
      'Invalid configuration: LOGIN_BACKOFF_MAX must be at least LOGIN_BACKOFF_BASE',
    ],
    [
      { LOGIN_BACKOFF_MAX: '3600', LOGIN_FAILURES_RESET: '900' },
      'Invalid configuration: LOGIN_FAILURES_RESET must be at least LOGIN_BACKOFF_MAX',
    ],
    [
      { WEBHOOK_RETRY_SCHEDULE: '5,5m' },
      'Invalid configuration: WEBHOOK_RETRY_SCHEDULE must be at most 20 whole numbers of seconds (1 to 604800), comma-separated',
    ],
    [
      { WEBHOOK_RETRY_SCHEDULE: '0' },
      'Invalid configuration: WEBHOOK_RETRY_SCHEDULE must be at most 20 whole numbers of seconds (1 to 604800), comma-separated',
    ],
    [
      { WEBHOOK_TIMEOUT_MS: '99' },
      'Invalid configuration: WEBHOOK_TIMEOUT_MS must be an integer from 100 to 60000 (got "99")',
    ],
  ])('refuses %j with one line naming the variable', (env, message) => {
    expect(() => loadConfig({ ...SECRETS, DATA_DIR: dataDir, ...env })).toThrow(message);
    expect(message).not.toContain('\n');
  });

  it('reads the webhooks: the documented defaults, and production keeps to https and public addresses', () => {
    expect(loadConfig({ ...SECRETS, DATA_DIR: dataDir }).webhooks).toEqual({
      timeoutMs: 5000,
      retrySchedule: [5, 300, 1800, 7200, 18000, 36000, 36000],
      allowHttp: true,
      allowPrivateNetworks: true,
    });
    const production = { ...SECRETS, ...MFA_KEY, NODE_ENV: 'production', DATA_DIR: dataDir };
    const env = { ...production, PUBLIC_URL: 'https://auth.example.com', SMTP_URL: 'smtp://mail' };
    expect(loadConfig(env).webhooks).toMatchObject({
      allowHttp: false,
      allowPrivateNetworks: false,
    });
    expect(
      loadConfig({
        ...env,
        WEBHOOK_ALLOW_HTTP: 'true',
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
        WEBHOOK_RETRY_SCHEDULE: ' 1, 2 ,3',
      }).webhooks,
    ).toMatchObject({ allowHttp: true, allowPrivateNetworks: true, retrySchedule: [1, 2, 3] });
  });

  it('names every bad variable at once, in one line', () => {
    const env = {
      ...SECRETS,
      DATA_DIR: dataDir,
      PORT: 'abc',
      CORS_ORIGINS: 'not a url',
      HTTP_PLATFORM: 'koa',
      COOKIE_SAMESITE: 'none',
      COOKIE_SECURE: 'false',
      REDIS_URL: '127.0.0.1:6379',
      BCRYPT_COST: '40',
    };
    expect(() => loadConfig(env)).toThrow(
      new Error(
        'Invalid configuration: PORT must be an integer from 0 to 65535 (got "abc"); ' +
          'CORS_ORIGINS must list http(s) origins separated by commas (got "not a url"); ' +
          'HTTP_PLATFORM must be one of express, fastify (got "koa"); ' +
          'COOKIE_SAMESITE can be none only with COOKIE_SECURE=true; ' +
          'REDIS_URL must look like redis://[:password@]host:port[/db]; ' +
          'BCRYPT_COST must be an integer from 4 to 15 (got "40")',
      ),
    );
  });

  it('names every missing production variable at once, and writes no secrets', () => {
    expect(() => loadConfig({ NODE_ENV: 'production', DATA_DIR: dataDir })).toThrow(
      new Error(
        'Invalid configuration: JWT_ACCESS_SECRET is required when NODE_ENV=production; ' +
          'JWT_REFRESH_SECRET is required when NODE_ENV=production; ' +
          'SMTP_URL is required when NODE_ENV=production (or set MAIL_OUTBOX_DIR to keep mail in files); ' +
          'MFA_ENCRYPTION_KEY is required when NODE_ENV=production',
      ),
    );
    expect(readdirSync(dataDir)).toEqual([]);
  });

  it('does not blame the key variables for a JWT_ALGORITHM it could not read', () => {
    expect(() =>
      loadConfig({
        ...SECRETS,
        DATA_DIR: dataDir,
        JWT_ALGORITHM: 'RS256',
        JWT_PRIVATE_KEY_FILE: '/nowhere/key.pem',
        LOG_LEVEL: 'loud',
      }),
    ).toThrow(
      new Error(
        'Invalid configuration: JWT_ALGORITHM must be one of HS256, ES256 (got "RS256"); ' +
          'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent (got "loud")',
      ),
    );
  });

  it('requires both JWT secrets in production and never prints a secret', () => {
    expect(() => loadConfig({ NODE_ENV: 'production', DATA_DIR: dataDir })).toThrow(
      'Invalid configuration: JWT_ACCESS_SECRET is required when NODE_ENV=production',
    );
    expect(() =>
      loadConfig({
        NODE_ENV: 'production',
        DATA_DIR: dataDir,
        JWT_ACCESS_SECRET: SECRETS.JWT_ACCESS_SECRET,
      }),
    ).toThrow('JWT_REFRESH_SECRET is required');
    expect(() =>
      loadConfig({ ...SECRETS, JWT_ACCESS_SECRET: 'hunter2-secret', DATA_DIR: dataDir }),
    ).toThrow(expect.objectContaining({ message: expect.not.stringContaining('hunter2') }));
  });

  it('requires SMTP in production unless the outbox is chosen on purpose', () => {
    const production = { ...SECRETS, ...MFA_KEY, NODE_ENV: 'production', DATA_DIR: dataDir };
    expect(() => loadConfig(production)).toThrow(
      'Invalid configuration: SMTP_URL is required when NODE_ENV=production (or set MAIL_OUTBOX_DIR to keep mail in files)',
    );
    expect(
      loadConfig({ ...production, SMTP_URL: 'smtps://u:p@mail.example.com' }).mail.smtpUrl,
    ).toBe('smtps://u:p@mail.example.com');
    expect(
      loadConfig({ ...production, MAIL_OUTBOX_DIR: join(dataDir, 'out') }).mail.outboxDir,
    ).toBe(join(dataDir, 'out'));
  });

  it('serves the API reference outside production, and in production only with API_DOCS=true', () => {
    const production = {
      ...SECRETS,
      ...MFA_KEY,
      NODE_ENV: 'production',
      DATA_DIR: dataDir,
      SMTP_URL: 'smtps://u:p@mail.example.com',
    };
    expect(loadConfig({ ...SECRETS, NODE_ENV: 'test', DATA_DIR: dataDir }).app.apiDocs).toBe(true);
    expect(loadConfig({ ...SECRETS, DATA_DIR: dataDir, API_DOCS: 'false' }).app.apiDocs).toBe(
      false,
    );
    expect(loadConfig(production).app.apiDocs).toBe(false);
    expect(loadConfig({ ...production, API_DOCS: 'true' }).app.apiDocs).toBe(true);
    expect(() => loadConfig({ ...production, API_DOCS: 'yes' })).toThrow(
      'Invalid configuration: API_DOCS must be true or false (got "yes")',
    );
  });

  it('generates the secrets once outside production and keeps them in the data folder', () => {
    const first = loadConfig({ DATA_DIR: dataDir });
    const second = loadConfig({ DATA_DIR: dataDir });
    const access = first.jwt.access;
    if (access.algorithm !== 'HS256') throw new Error('HS256 is the default');
    expect(access.secret).toHaveLength(64);
    expect(access.secret).not.toBe(first.jwt.refreshSecret);
    expect(second.jwt).toEqual(first.jwt);
    const file = join(dataDir, 'jwt-secrets.json');
    expect(readFileSync(file, 'utf8')).toContain(access.secret);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  describe('access-token algorithm and keys', () => {
    const p256 = () => generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const ed25519 = () => generateKeyPairSync('ed25519');
    const pem = (key: { export(options: object): string | Buffer }, type: 'pkcs8' | 'spki') =>
      key.export({ format: 'pem', type }).toString();
    const production = {
      NODE_ENV: 'production',
      ...MFA_KEY,
      JWT_REFRESH_SECRET: SECRETS.JWT_REFRESH_SECRET,
      SMTP_URL: 'smtps://u:p@mail.example.com',
    };

    it('defaults to HS256 with the access secret, and no key pair', () => {
      const config = loadConfig({ ...SECRETS, DATA_DIR: dataDir });
      expect(config.jwt.access).toEqual({ algorithm: 'HS256', secret: SECRETS.JWT_ACCESS_SECRET });
    });

    it('generates a key pair once outside production, and needs no access secret', () => {
      const first = loadConfig({ DATA_DIR: dataDir, JWT_ALGORITHM: 'es256' }).jwt.access;
      const second = loadConfig({ DATA_DIR: dataDir, JWT_ALGORITHM: 'ES256' }).jwt.access;
      if (first.algorithm === 'HS256' || second.algorithm === 'HS256') throw new Error('ES256');
      expect(first.current.kid).toBe(second.current.kid);
      expect(first.previous).toEqual([]);
      expect(first.devKeysFile).toBe(join(dataDir, 'jwt-keys', 'ES256.json'));
      expect(statSync(first.devKeysFile!).mode & 0o777).toBe(0o600);
    });

    it('takes the keys from files in production, without an access secret', () => {
      const current = p256();
      const retired = p256();
      const keyFile = join(dataDir, 'current.pem');
      const previousFile = join(dataDir, 'previous.pem');
      writeFileSync(keyFile, pem(current.privateKey, 'pkcs8'));
      // The current key listed among the previous ones (mid-rotation) is not listed twice.
      writeFileSync(
        previousFile,
        `${pem(retired.publicKey, 'spki')}${pem(current.publicKey, 'spki')}`,
      );
      const access = loadConfig({
        ...production,
        DATA_DIR: dataDir,
        JWT_ALGORITHM: 'ES256',
        JWT_PRIVATE_KEY_FILE: keyFile,
        JWT_PREVIOUS_PUBLIC_KEYS_FILE: previousFile,
      }).jwt.access;
      if (access.algorithm !== 'ES256') throw new Error('ES256');
      expect(access.devKeysFile).toBeUndefined();
      expect(access.previous.map((key) => key.kid)).toHaveLength(1);
      expect(access.previous[0].kid).not.toBe(access.current.kid);
    });

    it.each([
      [
        { JWT_ALGORITHM: 'RS256' },
        'Invalid configuration: JWT_ALGORITHM must be one of HS256, ES256 (got "RS256")',
      ],
      [
        { JWT_ALGORITHM: 'eddsa' },
        'Invalid configuration: JWT_ALGORITHM cannot be EdDSA any more (jsonwebtoken, under @nestjs/jwt and passport-jwt, has no EdDSA): use ES256',
      ],
      [
        { ...production, JWT_ALGORITHM: 'ES256' },
        'Invalid configuration: JWT_PRIVATE_KEY (or JWT_PRIVATE_KEY_FILE) is required when NODE_ENV=production and JWT_ALGORITHM=ES256',
      ],
      [
        { JWT_PRIVATE_KEY: 'x' },
        'Invalid configuration: JWT_PRIVATE_KEY is used only with JWT_ALGORITHM=ES256',
      ],
      [
        { JWT_PREVIOUS_PUBLIC_KEYS_FILE: '/nowhere' },
        'Invalid configuration: JWT_PREVIOUS_PUBLIC_KEYS_FILE is used only with JWT_ALGORITHM=ES256',
      ],
      [
        { JWT_ALGORITHM: 'ES256', JWT_PRIVATE_KEY: 'x', JWT_PRIVATE_KEY_FILE: '/x' },
        'Invalid configuration: JWT_PRIVATE_KEY_FILE cannot be set together with JWT_PRIVATE_KEY',
      ],
      [
        { JWT_ALGORITHM: 'ES256', JWT_PRIVATE_KEY_FILE: '/nowhere/key.pem' },
        'Invalid configuration: JWT_PRIVATE_KEY_FILE cannot be read (ENOENT: /nowhere/key.pem)',
      ],
      [
        { JWT_ALGORITHM: 'ES256', JWT_PRIVATE_KEY: 'not a key' },
        'Invalid configuration: JWT_PRIVATE_KEY must be an unencrypted PEM private key (PKCS#8, -----BEGIN PRIVATE KEY-----)',
      ],
      [
        {
          JWT_ALGORITHM: 'ES256',
          JWT_PRIVATE_KEY: pem(ed25519().privateKey, 'pkcs8'),
        },
        'Invalid configuration: JWT_PRIVATE_KEY must be a P-256 (prime256v1) key for JWT_ALGORITHM=ES256 (got ed25519)',
      ],
      [
        {
          JWT_ALGORITHM: 'ES256',
          JWT_PRIVATE_KEY: pem(p256().privateKey, 'pkcs8'),
          JWT_PREVIOUS_PUBLIC_KEYS: pem(ed25519().publicKey, 'spki'),
        },
        'Invalid configuration: JWT_PREVIOUS_PUBLIC_KEYS must be a P-256 (prime256v1) key for JWT_ALGORITHM=ES256 (number 1) (got ed25519)',
      ],
    ])('refuses %j with one line naming the variable', (env, message) => {
      expect(() => loadConfig({ ...SECRETS, DATA_DIR: dataDir, ...env })).toThrow(message);
    });

    it('refuses a damaged generated key file, naming it', () => {
      const env = { DATA_DIR: dataDir, JWT_ALGORITHM: 'ES256' };
      loadConfig(env);
      const file = join(dataDir, 'jwt-keys', 'ES256.json');
      writeFileSync(file, 'garbage');
      expect(() => loadConfig(env)).toThrow(
        `Invalid configuration: DATA_DIR holds ${file}, which is not valid JSON: delete it to generate a new key`,
      );
    });
  });

  it('reads LOG_LEVEL as one of pino levels', () => {
    expect(loadConfig({ ...SECRETS, DATA_DIR: dataDir, LOG_LEVEL: 'WARN' }).log.level).toBe('warn');
    expect(() => loadConfig({ ...SECRETS, DATA_DIR: dataDir, LOG_LEVEL: 'verbose' })).toThrow(
      'Invalid configuration: LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent (got "verbose")',
    );
  });

  it('reads LOG_FORMAT: readable lines on a terminal only outside production, tests and CI', () => {
    const readable = (env: Record<string, string>) =>
      loadConfig({ ...SECRETS, DATA_DIR: dataDir, ...env }).log.readable;
    expect(readable({})).toBe('on-terminal');
    expect(readable({ NODE_ENV: 'development', CI: 'false' })).toBe('on-terminal');
    expect(readable({ NODE_ENV: 'test' })).toBe('never');
    expect(readable({ CI: 'true' })).toBe('never');
    expect(readable({ CI: '1' })).toBe('never');
    expect(readable({ LOG_FORMAT: 'JSON' })).toBe('never');
    expect(readable({ LOG_FORMAT: 'pretty', CI: 'true' })).toBe('always');
    const production = {
      ...MFA_KEY,
      NODE_ENV: 'production',
      SMTP_URL: 'smtps://u:p@mail.example.com',
    };
    expect(readable(production)).toBe('never');
    expect(() => readable({ LOG_FORMAT: 'text' })).toThrow(
      'Invalid configuration: LOG_FORMAT must be one of auto, json, pretty (got "text")',
    );
  });

  it('reads TRUST_PROXY as a hop count or a list of addresses', () => {
    expect(loadConfig({ ...SECRETS, DATA_DIR: dataDir, TRUST_PROXY: '2' }).app.trustProxy).toBe(2);
    expect(
      loadConfig({ ...SECRETS, DATA_DIR: dataDir, TRUST_PROXY: 'loopback, 10.0.0.0/8' }).app
        .trustProxy,
    ).toEqual(['loopback', '10.0.0.0/8']);
  });

  describe('the second factor', () => {
    it('generates the key that seals TOTP secrets once outside production, and keeps it', () => {
      const first = loadConfig({ ...SECRETS, DATA_DIR: dataDir });
      const second = loadConfig({ ...SECRETS, DATA_DIR: dataDir });
      expect(first.mfa.encryptionKey).toHaveLength(32);
      expect(second.mfa.encryptionKey.equals(first.mfa.encryptionKey)).toBe(true);
      expect(statSync(join(dataDir, 'mfa-key')).mode & 0o777).toBe(0o600);
      expect(first.mfa).toMatchObject({
        stepUpMaxAge: 600,
        requiredRoles: [],
        previousEncryptionKeys: [],
      });
    });

    it('takes keys in base64 or hex, roles that exist, and names every bad variable', () => {
      const hex = 'ab'.repeat(32);
      const config = loadConfig({
        ...SECRETS,
        DATA_DIR: dataDir,
        MFA_ENCRYPTION_KEY: hex,
        MFA_ENCRYPTION_PREVIOUS_KEYS: `${MFA_KEY.MFA_ENCRYPTION_KEY}, ${'cd'.repeat(32)}`,
        MFA_REQUIRED_ROLES: 'Admin',
        STEP_UP_MAX_AGE: '300',
      });
      expect(config.mfa.encryptionKey.toString('hex')).toBe(hex);
      expect(config.mfa.previousEncryptionKeys).toHaveLength(2);
      expect(config.mfa).toMatchObject({ requiredRoles: ['admin'], stepUpMaxAge: 300 });
      expect(() =>
        loadConfig({
          ...SECRETS,
          DATA_DIR: dataDir,
          MFA_ENCRYPTION_KEY: 'too-short',
          MFA_REQUIRED_ROLES: 'admin, owner',
          STEP_UP_MAX_AGE: '5',
        }),
      ).toThrow(
        /MFA_ENCRYPTION_KEY must be 32 bytes.*MFA_REQUIRED_ROLES must list roles among user, admin \(got owner\); STEP_UP_MAX_AGE must be/,
      );
    });
  });

  describe('sign-in by a code by email', () => {
    it('is switched off by EMAIL_CODE_LOGIN=false, and takes its lifetime and attempts', () => {
      const config = loadConfig({
        ...SECRETS,
        DATA_DIR: dataDir,
        EMAIL_CODE_LOGIN: 'false',
        EMAIL_CODE_TTL: '300',
        EMAIL_CODE_ATTEMPTS: '3',
      });
      expect(config.emailCode).toEqual({ enabled: false, ttl: 300, maxAttempts: 3 });
    });

    it('names every bad variable of it', () => {
      expect(() =>
        loadConfig({
          ...SECRETS,
          DATA_DIR: dataDir,
          EMAIL_CODE_LOGIN: 'maybe',
          EMAIL_CODE_TTL: '10',
          EMAIL_CODE_ATTEMPTS: '0',
        }),
      ).toThrow(/EMAIL_CODE_LOGIN must be .*EMAIL_CODE_TTL must be .*EMAIL_CODE_ATTEMPTS must be/);
    });
  });

  describe('blocking hooks', () => {
    const SECRET = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;
    const load = (env: Record<string, string>) =>
      loadConfig({ ...SECRETS, DATA_DIR: dataDir, ...env });

    it('asks none by default, and takes the URLs, the secret, the deadline and the mode', () => {
      expect(load({}).hooks).toEqual({
        beforeUserCreatedUrl: undefined,
        customAccessTokenUrl: undefined,
        secret: undefined,
        timeoutMs: 2000,
        failure: 'closed',
      });
      const config = load({
        HOOK_BEFORE_USER_CREATED: 'https://hooks.example/before',
        HOOK_CUSTOM_ACCESS_TOKEN: 'http://127.0.0.1:9000/claims',
        HOOK_SECRET: SECRET,
        HOOK_TIMEOUT_MS: '500',
        HOOK_FAILURE: 'open',
      });
      expect(config.hooks).toEqual({
        beforeUserCreatedUrl: 'https://hooks.example/before',
        customAccessTokenUrl: 'http://127.0.0.1:9000/claims',
        secret: Buffer.alloc(32, 9),
        timeoutMs: 500,
        failure: 'open',
      });
    });

    it('refuses a URL without HOOK_SECRET, a bad URL and a bad secret, never printing it', () => {
      expect(() => load({ HOOK_CUSTOM_ACCESS_TOKEN: 'https://hooks.example/claims' })).toThrow(
        'HOOK_SECRET is required when HOOK_BEFORE_USER_CREATED or HOOK_CUSTOM_ACCESS_TOKEN is set',
      );
      expect(() =>
        load({ HOOK_BEFORE_USER_CREATED: 'hooks.example', HOOK_SECRET: SECRET }),
      ).toThrow('HOOK_BEFORE_USER_CREATED must be an http(s) URL (got "hooks.example")');
      expect(() => load({ HOOK_SECRET: 'whsec_c2hvcnQ=' })).toThrow(
        expect.objectContaining({
          message: expect.stringMatching(/HOOK_SECRET must be whsec_ .*(?<!c2hvcnQ=)$/),
        }),
      );
      expect(() => load({ HOOK_FAILURE: 'maybe', HOOK_TIMEOUT_MS: '0' })).toThrow(
        /HOOK_TIMEOUT_MS must be .*HOOK_FAILURE must be one of closed, open/,
      );
    });

    it('takes an http:// URL in production only with WEBHOOK_ALLOW_HTTP=true', () => {
      const production = {
        ...SECRETS,
        ...MFA_KEY,
        NODE_ENV: 'production',
        DATA_DIR: dataDir,
        SMTP_URL: 'smtp://mail.example:587',
        HOOK_SECRET: SECRET,
        HOOK_BEFORE_USER_CREATED: 'http://hooks.internal/before',
      };
      expect(() => loadConfig(production)).toThrow(
        'HOOK_BEFORE_USER_CREATED must be an https:// URL in production (or set WEBHOOK_ALLOW_HTTP=true)',
      );
      const allowed = loadConfig({ ...production, WEBHOOK_ALLOW_HTTP: 'true' });
      expect(allowed.hooks.beforeUserCreatedUrl).toBe('http://hooks.internal/before');
    });
  });
});
