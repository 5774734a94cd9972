import { spawnSync } from 'node:child_process';
import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import {
  JSONWebKeySet,
  SignJWT,
  createLocalJWKSet,
  createRemoteJWKSet,
  importPKCS8,
  jwtVerify,
} from 'jose';
import * as jwt from 'jsonwebtoken';
import { verificationKey } from '../src/config/signing-keys';
import { TEST_ISSUER, accessClaims, signAccess } from './support/access-tokens';
import {
  cookiesOf,
  expectError,
  login,
  refreshWith,
  registerAndLogin,
} from './support/auth-helpers';
import { freePort } from './support/free-port';
import { TestApp, startTestApp } from './support/test-app';
import { TestDatabase, createTestDatabase } from './support/test-database';
import { serviceArgs } from './support/service-build';

const JWKS_PATH = '/api/v1/.well-known/jwks.json';
/** Where verifiers look by default: the origin's root (get-jwks, RFC 8414 discovery). */
const ROOT_JWKS_PATH = '/.well-known/jwks.json';
const METADATA_PATH = '/.well-known/oauth-authorization-server';
const pem = (key: { export(options: object): string | Buffer }, type: 'pkcs8' | 'spki') =>
  key.export({ format: 'pem', type }).toString();

function newKeyPair() {
  const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return { ...pair, kid: verificationKey(pair.publicKey).kid };
}

type PublishedKeys = JSONWebKeySet & { keys: Array<{ kid: string }> };

async function jwksOf(t: TestApp): Promise<PublishedKeys> {
  return (await t.http().get(JWKS_PATH).expect(200)).body as PublishedKeys;
}

/** What a resource server pins besides the keys (RFC 9068); docs/api.md's example does the same. */
const PINNED = { issuer: TEST_ISSUER, audience: TEST_ISSUER, typ: 'at+jwt' };

/** A token as the service signs it with a key pair: the claims, `typ: at+jwt` and a `kid`. */
function signWith(key: ReturnType<typeof newKeyPair>, claims: object, header: object = {}) {
  return new SignJWT({ ...claims })
    .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: key.kid, ...header })
    .sign(key.privateKey);
}

describe('JWKS with HS256, the default', () => {
  let t: TestApp;
  beforeAll(async () => {
    // Behind one proxy: the rate-limit test below is a client of its own, whose budget the
    // other tests (their 404s count) leave whole.
    t = await startTestApp({ THROTTLE_LIMIT: '3', TRUST_PROXY: '1' });
  });
  afterAll(() => t.close());

  it('answers an empty key set: the HS256 secret is never shared', async () => {
    const response = await t.http().get(JWKS_PATH).expect(200);
    expect(response.body).toEqual({ keys: [] });
    expect(response.headers['cache-control']).toBe('public, max-age=300');
    expect(response.headers['content-type']).toMatch(/^application\/json/);
  });

  it('answers the same empty set at the root, where verifiers look by default', async () => {
    const response = await t.http().get(ROOT_JWKS_PATH).expect(200);
    expect(response.body).toEqual({ keys: [] });
    expect(response.headers['cache-control']).toBe('public, max-age=300');
    expect(response.headers['content-type']).toMatch(/^application\/json/);
  });

  it('publishes RFC 8414 metadata naming the issuer and the root key set, nothing untrue', async () => {
    const response = await t.http().get(METADATA_PATH).expect(200);
    expect(response.body).toEqual({
      issuer: TEST_ISSUER,
      jwks_uri: `${TEST_ISSUER}/.well-known/jwks.json`,
      // Required by RFC 8414; the service offers no OAuth authorization or token endpoint.
      response_types_supported: [],
      grant_types_supported: [],
      service_documentation: `${TEST_ISSUER}/api/v1/docs`,
    });
    expect(response.headers['cache-control']).toBe('public, max-age=300');
    expect(response.headers['content-type']).toMatch(/^application\/json/);
  });

  it('keeps the other documents at the root off: only the well-known ones left the prefix', async () => {
    expectError(await t.http().get('/auth/verify-token'), 404, 'NOT_FOUND');
    expectError(await t.http().get('/.well-known/openid-configuration'), 404, 'NOT_FOUND');
    expectError(await t.http().get(`/api/v1${METADATA_PATH}`), 404, 'NOT_FOUND');
  });

  it('is not rate-limited, and does not use up the general budget', async () => {
    const get = (path: string) => t.http().get(path).set('X-Forwarded-For', '198.51.100.7');
    for (let i = 0; i < 10; i++) await get(JWKS_PATH).expect(200);
    for (let i = 0; i < 10; i++) await get(ROOT_JWKS_PATH).expect(200);
    for (let i = 0; i < 10; i++) await get(METADATA_PATH).expect(200);
    for (let i = 0; i < 3; i++) await get('/api/v1/auth/verify-token').expect(401);
    expectError(await get('/api/v1/auth/verify-token'), 429, 'RATE_LIMITED');
    await get(JWKS_PATH).expect(200);
  });
});

describe('HS256 access tokens', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('issues HS256 without a kid, and refuses a token in another algorithm', async () => {
    const session = await registerAndLogin(t);
    expect(jwt.decode(session.access, { complete: true })?.header).toEqual({
      alg: 'HS256',
      typ: 'at+jwt',
    });
    const es256 = await signWith(newKeyPair(), accessClaims(session));
    expectError(
      await t.http().get('/api/v1/auth/verify-token').set('Authorization', `Bearer ${es256}`),
      401,
      'INVALID_TOKEN',
    );
  });
});

describe('access tokens signed with ES256', () => {
  const algorithm = 'ES256';
  let t: TestApp;
  let api: string;
  beforeAll(async () => {
    t = await startTestApp({ JWT_ALGORITHM: algorithm });
    const port = await freePort();
    await t.app.listen(port, '127.0.0.1');
    api = `http://127.0.0.1:${port}/api/v1`;
  });
  afterAll(() => t.close());

  const verifyToken = (token: string) =>
    t.http().get('/api/v1/auth/verify-token').set('Authorization', `Bearer ${token}`);

  it('are verified by an independent library that knows only the JWKS URL', async () => {
    const session = await registerAndLogin(t);
    const keySet = createRemoteJWKSet(new URL(`${api}/.well-known/jwks.json`));
    const { payload, protectedHeader } = await jwtVerify(session.access, keySet, {
      algorithms: [algorithm],
      ...PINNED,
    });
    expect(payload).toMatchObject({ sub: session.user.id, role: 'user' });
    expect(protectedHeader).toEqual({ alg: algorithm, typ: 'at+jwt', kid: expect.any(String) });
    // A verifier pinning another issuer, audience or type refuses it.
    for (const wrong of [
      { issuer: 'https://other-issuer.example' },
      { audience: 'https://other-api.example' },
      { typ: 'JWT' },
    ]) {
      await expect(
        jwtVerify(session.access, keySet, { algorithms: [algorithm], ...PINNED, ...wrong }),
      ).rejects.toThrow();
    }
    // The service accepts its own token, as a cookie and as a bearer token.
    await verifyToken(session.access).expect(200);
    await t
      .http()
      .get('/api/v1/auth/verify-token')
      .set('Cookie', `access_token=${session.access}`)
      .expect(200);

    // A refreshed access token too; the refresh token itself stays HS256, for this service only.
    const refreshed = cookiesOf(await refreshWith(t, session.refresh).expect(200));
    await jwtVerify(refreshed.access_token.value, keySet, { algorithms: [algorithm], ...PINNED });
    expect(jwt.decode(refreshed.refresh_token.value, { complete: true })?.header).toEqual({
      alg: 'HS256',
      typ: 'JWT',
    });
  });

  it('publishes the public key as a standard JWK Set, cached for five minutes', async () => {
    const response = await fetch(`${api}/.well-known/jwks.json`);
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('public, max-age=300');
    const body = (await response.json()) as { keys: Array<Record<string, string>> };
    expect(body.keys).toEqual([
      {
        kty: 'EC',
        crv: 'P-256',
        x: expect.any(String),
        y: expect.any(String),
        kid: expect.any(String),
        alg: algorithm,
        use: 'sig',
      },
    ]);
  });

  it('keeps the generated key in the data folder, readable by its owner only', async () => {
    const file = join(dirname(t.outboxDir), 'jwt-keys', `${algorithm}.json`);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    // With the key from that file, an expired token is refused as expired.
    const stored = JSON.parse(readFileSync(file, 'utf8')) as { privateKey: string };
    const { body } = await t.http().get(JWKS_PATH);
    const session = await registerAndLogin(t);
    const expired = await new SignJWT(accessClaims(session, -10))
      .setProtectedHeader({ alg: algorithm, typ: 'at+jwt', kid: body.keys[0].kid })
      .sign(await importPKCS8(stored.privateKey, algorithm));
    const response = await verifyToken(expired);
    expectError(response, 401, 'INVALID_TOKEN');
    expect(response.body.message).toMatch(/expired/);
  });

  it('refuses a token whose kid is unknown, or whose key does not match its kid', async () => {
    const session = await registerAndLogin(t);
    const claims = accessClaims(session);
    const stranger = newKeyPair();
    expectError(await verifyToken(await signWith(stranger, claims)), 401, 'INVALID_TOKEN');
    const known = jwt.decode(session.access, { complete: true })?.header.kid;
    for (const header of [
      { kid: known },
      { kid: known, jwk: stranger.publicKey.export({ format: 'jwk' }) },
      { kid: known, jku: 'https://attacker.example/jwks.json' },
      { kid: known, x5u: 'https://attacker.example/cert.pem' },
      { kid: '../../../../dev/null' },
      { kid: undefined },
    ]) {
      expectError(
        await verifyToken(await signWith(stranger, claims, header)),
        401,
        'INVALID_TOKEN',
      );
    }
  });

  it('refuses another issuer, another audience, another type and a critical header', async () => {
    const session = await registerAndLogin(t);
    const stored = JSON.parse(
      readFileSync(join(dirname(t.outboxDir), 'jwt-keys', `${algorithm}.json`), 'utf8'),
    ) as { privateKey: string };
    const key = { privateKey: await importPKCS8(stored.privateKey, algorithm) };
    const kid = jwt.decode(session.access, { complete: true })?.header.kid;
    const sign = (claims: object, header: object = {}) =>
      new SignJWT({ ...claims })
        .setProtectedHeader({ alg: algorithm, typ: 'at+jwt', kid, ...header })
        .sign(key.privateKey);
    const claims = accessClaims(session);
    await verifyToken(await sign(claims)).expect(200);
    for (const token of [
      await sign({ ...claims, iss: 'https://other-issuer.example' }),
      await sign({ ...claims, aud: 'https://other-api.example' }),
      await sign(claims, { typ: 'JWT' }),
      await sign(claims, { crit: ['b64'], b64: true }),
    ]) {
      expectError(await verifyToken(token), 401, 'INVALID_TOKEN');
    }
  });

  it('refuses HS256 tokens, even signed with the old access secret or the public key', async () => {
    const session = await registerAndLogin(t);
    const claims = accessClaims(session);
    expectError(await verifyToken(signAccess(claims)), 401, 'INVALID_TOKEN');
    const { body } = await t.http().get(JWKS_PATH);
    const publicKey = createPublicKey({ key: body.keys[0], format: 'jwk' });
    const confused = signAccess(claims, {
      secret: publicKey.export({ format: 'pem', type: 'spki' }).toString(),
      header: { kid: body.keys[0].kid },
    });
    expectError(await verifyToken(confused), 401, 'INVALID_TOKEN');
    const none = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'at+jwt', kid: body.keys[0].kid })).toString('base64url')}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.`;
    expectError(await verifyToken(none), 401, 'INVALID_TOKEN');
  });
});

describe('discovery from the issuer alone (RFC 8414), with ES256', () => {
  let t: TestApp;
  let issuer: string;
  beforeAll(async () => {
    const port = await freePort();
    issuer = `http://127.0.0.1:${port}`;
    // PUBLIC_URL is where clients reach the service, and the issuer by default.
    t = await startTestApp({ JWT_ALGORITHM: 'ES256', PUBLIC_URL: issuer, API_DOCS: 'false' });
    await t.app.listen(port, '127.0.0.1');
  });
  afterAll(() => t.close());

  it('leads a verifier that knows only the issuer to the keys that verify its tokens', async () => {
    const session = await registerAndLogin(t);
    const response = await fetch(new URL('/.well-known/oauth-authorization-server', issuer));
    expect(response.status).toBe(200);
    const metadata = (await response.json()) as Record<string, unknown>;
    // RFC 8414 section 3.3: the issuer in the document is the one the client started from.
    expect(metadata).toEqual({
      issuer,
      jwks_uri: `${issuer}/.well-known/jwks.json`,
      response_types_supported: [],
      grant_types_supported: [],
    });
    const keySet = createRemoteJWKSet(new URL(metadata.jwks_uri as string));
    const { payload } = await jwtVerify(session.access, keySet, {
      algorithms: ['ES256'],
      issuer,
      audience: issuer,
      typ: 'at+jwt',
    });
    expect(payload.sub).toBe(session.user.id);
  });

  it('publishes the same key set at the root and under /api/v1', async () => {
    const root = await fetch(`${issuer}/.well-known/jwks.json`);
    const prefixed = await fetch(`${issuer}/api/v1/.well-known/jwks.json`);
    expect(root.headers.get('cache-control')).toBe('public, max-age=300');
    const keys = (await root.json()) as PublishedKeys;
    expect(keys.keys).toHaveLength(1);
    expect(await prefixed.json()).toEqual(keys);
  });
});

describe('a previous key (JWT_PREVIOUS_PUBLIC_KEYS) keeps verifying', () => {
  const current = newKeyPair();
  const previous = newKeyPair();
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({
      // Production: the keys must come from the environment, and no access secret is needed.
      NODE_ENV: 'production',
      MFA_ENCRYPTION_KEY: Buffer.alloc(32, 9).toString('base64'),
      JWT_ALGORITHM: 'ES256',
      JWT_ACCESS_SECRET: '',
      // One line with the line breaks written as \n, as environment files often carry PEMs.
      JWT_PRIVATE_KEY: pem(current.privateKey, 'pkcs8').replace(/\n/g, '\\n'),
      JWT_PREVIOUS_PUBLIC_KEYS: pem(previous.publicKey, 'spki'),
    });
  });
  afterAll(() => t.close());

  it('signs with the current key and accepts tokens the previous key signed', async () => {
    const session = await registerAndLogin(t);
    expect(jwt.decode(session.access, { complete: true })?.header.kid).toBe(current.kid);
    const body = await jwksOf(t);
    expect(body.keys.map((key) => key.kid)).toEqual([current.kid, previous.kid]);

    const old = await signWith(previous, accessClaims(session));
    await t
      .http()
      .get('/api/v1/auth/verify-token')
      .set('Authorization', `Bearer ${old}`)
      .expect(200);
    await jwtVerify(old, createLocalJWKSet(body), { algorithms: ['ES256'], ...PINNED });
  });
});

/** `npm run keys:rotate`, as a process of its own, in a folder without a `.env`. */
function rotateKeys(env: Record<string, string>) {
  const cwd = mkdtempSync(join(tmpdir(), 'auth-rotate-cwd-'));
  try {
    return spawnSync(process.execPath, serviceArgs('cli/rotate-dev-keys.command'), {
      cwd,
      env: {
        PATH: process.env.PATH,
        ...env,
        TS_NODE_PROJECT: join(__dirname, '../tsconfig.json'),
      },
      encoding: 'utf8',
      timeout: 60_000,
    });
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
}

describe('rotating the generated keys (npm run keys:rotate)', () => {
  let dataDir: string;
  let database: TestDatabase;
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'auth-rotate-'));
    // Two service runs on one database: a file for SQLite, a throwaway database on MariaDB.
    database = process.env.TEST_DATABASE_URL
      ? await createTestDatabase()
      : {
          url: `sqlite:${join(dataDir, 'auth.sqlite')}`,
          kind: 'sqlite',
          drop: () => Promise.resolve(),
        };
  });
  afterAll(async () => {
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('signs with the new key after a restart, and still accepts the old key’s tokens', async () => {
    const env = { JWT_ALGORITHM: 'ES256', DATA_DIR: dataDir };
    const first = await startTestApp(env, { database });
    const session = await registerAndLogin(first);
    const oldKid = jwt.decode(session.access, { complete: true })?.header.kid as string;
    await first.close();

    const rotation = rotateKeys(env);
    expect(rotation.stderr).toBe('');
    expect(rotation.status).toBe(0);
    expect(rotation.stdout).toContain(`The previous key ${oldKid} keeps verifying`);

    const second = await startTestApp(env, { database });
    try {
      const [newKid, retiredKid] = (await jwksOf(second)).keys.map((key) => key.kid);
      expect(retiredKid).toBe(oldKid);
      expect(newKid).not.toBe(oldKid);
      expect(rotation.stdout).toContain(`signing key ${newKid}`);
      await second
        .http()
        .get('/api/v1/auth/verify-token')
        .set('Authorization', `Bearer ${session.access}`)
        .expect(200);
      const fresh = await login(second, session.credentials);
      expect(jwt.decode(fresh.access, { complete: true })?.header.kid).toBe(newKid);
      // The old key's window started with this boot.
      const stored = JSON.parse(readFileSync(join(dataDir, 'jwt-keys', 'ES256.json'), 'utf8'));
      expect(Date.parse(stored.previous[0].retiredAt)).toBeGreaterThan(Date.now() - 60_000);
    } finally {
      await second.close();
    }
  });

  it('refuses with one line where there is nothing it may rotate', () => {
    for (const [env, message] of [
      [{ DATA_DIR: dataDir }, 'JWT_ALGORITHM is HS256, which has no key pair to rotate'],
      [
        { DATA_DIR: dataDir, JWT_ALGORITHM: 'ES256', JWT_PRIVATE_KEY_FILE: '/etc/key.pem' },
        'the signing key comes from JWT_PRIVATE_KEY(_FILE): rotate it there',
      ],
    ] as const) {
      const rotation = rotateKeys(env);
      expect(rotation.status).toBe(1);
      expect(rotation.stderr).toBe(`Cannot rotate the keys: ${message}\n`);
    }
  });
});
