import { generateKeyPairSync } from 'node:crypto';
import * as jwt from 'jsonwebtoken';
import { SessionsService } from '../src/sessions/sessions.service';
import { TEST_ISSUER, accessClaims, signAccess } from './support/access-tokens';
import {
  LoggedIn,
  cookiesOf,
  expectError,
  login,
  refreshWith,
  registerAndLogin,
} from './support/auth-helpers';
import { REFRESH_SECRET, TestApp, startTestApp } from './support/test-app';

const now = () => Math.floor(Date.now() / 1000);

describe('access tokens: verify-token, forged and expired tokens', () => {
  let t: TestApp;
  let session: LoggedIn;

  beforeAll(async () => {
    t = await startTestApp();
    session = await registerAndLogin(t);
  });
  afterAll(() => t.close());

  const verifyWithBearer = (token: string) =>
    t.http().get('/api/v1/auth/verify-token').set('Authorization', `Bearer ${token}`);

  it.each(['get', 'post'] as const)('%s verify-token accepts the cookie', async (method) => {
    const http = t.http();
    const response = await http[method]('/api/v1/auth/verify-token')
      .set('Cookie', `access_token=${session.access}`)
      .expect(200);
    expect(response.body).toEqual({
      success: true,
      message: 'Token is valid',
      data: { user: expect.objectContaining({ id: session.user.id, role: 'user' }) },
    });
  });

  it.each(['get', 'post'] as const)('%s verify-token accepts the bearer token', async (method) => {
    const http = t.http();
    await http[method]('/api/v1/auth/verify-token')
      .set('Authorization', `Bearer ${session.access}`)
      .expect(200);
  });

  it('lets the bearer header win over the cookie', async () => {
    const response = await t
      .http()
      .get('/api/v1/auth/verify-token')
      .set('Authorization', 'Bearer not-a-token')
      .set('Cookie', `access_token=${session.access}`);
    expectError(response, 401, 'INVALID_TOKEN');
  });

  it('answers a missing token with 401 INVALID_TOKEN', async () => {
    expectError(await t.http().get('/api/v1/auth/verify-token'), 401, 'INVALID_TOKEN');
  });

  it('issues RFC 9068 access tokens: typ at+jwt, iss, aud, sub, iat, exp, jti, sid, client_id, auth_time and amr', async () => {
    await verifyWithBearer(signAccess(accessClaims(session))).expect(200);
    const { header, payload } = jwt.decode(session.access, { complete: true })!;
    expect(header).toEqual({ alg: 'HS256', typ: 'at+jwt' });
    const claims = payload as Record<string, unknown>;
    expect(claims).toEqual({
      iss: TEST_ISSUER,
      aud: TEST_ISSUER,
      sub: session.user.id,
      iat: expect.any(Number),
      exp: (claims.iat as number) + 900,
      jti: expect.stringMatching(/^[0-9a-f-]{36}$/),
      sid: expect.any(String),
      ver: 0,
      role: 'user',
      client_id: 'auth-service',
      // Authenticated by the password, at the login (RFC 8176, OpenID Connect).
      auth_time: expect.any(Number),
      amr: ['pwd'],
    });
    expect(claims.auth_time).toBeGreaterThanOrEqual((claims.iat as number) - 5);
    expect(claims.auth_time).toBeLessThanOrEqual(claims.iat as number);
    // The session is the refresh token's family: a per-session logout can name it.
    expect(claims.sid).toBe((jwt.decode(session.refresh) as { fam: string }).fam);
  });

  it('refuses a token of another issuer or another audience', async () => {
    const claims = accessClaims(session);
    for (const foreign of [
      { ...claims, iss: 'https://other-issuer.example' },
      { ...claims, aud: 'https://other-api.example' },
      { ...claims, aud: [TEST_ISSUER.toUpperCase()] },
    ]) {
      expectError(await verifyWithBearer(signAccess(foreign)), 401, 'INVALID_TOKEN');
    }
  });

  it('refuses a token that is not typed at+jwt, or that carries a critical header', async () => {
    const claims = accessClaims(session);
    for (const header of [{ typ: 'JWT' }, { typ: undefined }, { crit: ['exp'] }]) {
      expectError(await verifyWithBearer(signAccess(claims, { header })), 401, 'INVALID_TOKEN');
    }
  });

  it('refuses a second spelling of a valid signature', async () => {
    // 32 bytes take 43 characters; the last one carries 2 spare bits that decoding ignores.
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const respell = (token: string) =>
      `${token.slice(0, -1)}${alphabet[alphabet.indexOf(token.at(-1)!) ^ 1]}`;
    expectError(await verifyWithBearer(respell(session.access)), 401, 'INVALID_TOKEN');
    const refresh = await t
      .http()
      .post('/api/v1/auth/refresh')
      .set('Cookie', `refresh_token=${respell(session.refresh)}`);
    expectError(refresh, 401, 'INVALID_TOKEN');
  });

  it('refuses an expired access token', async () => {
    const token = signAccess({
      ...accessClaims(session),
      iat: now() - 1000,
      exp: now() - 10,
    });
    const response = await verifyWithBearer(token);
    expectError(response, 401, 'INVALID_TOKEN');
    expect(response.body.message).toMatch(/expired/);
  });

  it('refuses alg none', async () => {
    const header = Buffer.from(JSON.stringify({ alg: 'none', typ: 'at+jwt' })).toString(
      'base64url',
    );
    const payload = Buffer.from(JSON.stringify(accessClaims(session))).toString('base64url');
    expectError(await verifyWithBearer(`${header}.${payload}.`), 401, 'INVALID_TOKEN');
  });

  it('refuses a token signed with another key', async () => {
    const token = signAccess(accessClaims(session), {
      secret: 'another-secret-another-secret-another-secret',
    });
    expectError(await verifyWithBearer(token), 401, 'INVALID_TOKEN');
  });

  it('refuses a token that names its own key (jwk, jku, x5u, a path as kid)', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const claims = accessClaims(session);
    const jwk = jwt.sign(claims, privateKey, {
      algorithm: 'ES256',
      header: {
        alg: 'ES256',
        typ: 'at+jwt',
        jwk: publicKey.export({ format: 'jwk' }),
      } as jwt.JwtHeader,
    });
    expectError(await verifyWithBearer(jwk), 401, 'INVALID_TOKEN');
    const stranger = 'a-stranger-secret-a-stranger-secret-0123';
    for (const header of [
      { jku: 'https://attacker.example/jwks.json' },
      { x5u: 'https://attacker.example/cert.pem' },
      { kid: '../../../../dev/null' },
    ]) {
      const token = signAccess(claims, { secret: stranger, header });
      expectError(await verifyWithBearer(token), 401, 'INVALID_TOKEN');
    }
  });

  it('refuses a refresh token where an access token is expected', async () => {
    expectError(await verifyWithBearer(session.refresh), 401, 'INVALID_TOKEN');
  });

  it('refuses an access-shaped token signed with the refresh secret', async () => {
    const token = signAccess(accessClaims(session), { secret: REFRESH_SECRET });
    expectError(await verifyWithBearer(token), 401, 'INVALID_TOKEN');
  });

  it('refuses an access token where a refresh token is expected', async () => {
    const response = await t
      .http()
      .post('/api/v1/auth/refresh')
      .set('Cookie', `refresh_token=${session.access}`);
    expectError(response, 401, 'INVALID_TOKEN');
  });

  it('refuses a j: cookie (the JSON-object cookie form some parsers expand)', async () => {
    const value = encodeURIComponent(`j:${JSON.stringify({ sub: session.user.id })}`);
    expectError(
      await t.http().get('/api/v1/auth/verify-token').set('Cookie', `access_token=${value}`),
      401,
      'INVALID_TOKEN',
    );
  });

  it('refuses tokens whose claims are missing, so no lookup runs on an absent value', async () => {
    const noSubject = accessClaims(session);
    delete noSubject.sub;
    expectError(await verifyWithBearer(signAccess(noSubject)), 401, 'INVALID_TOKEN');
    const noId = jwt.sign({ sub: session.user.id, typ: 'refresh' }, REFRESH_SECRET, {
      expiresIn: 600,
    });
    const refresh = await t
      .http()
      .post('/api/v1/auth/refresh')
      .set('Cookie', `refresh_token=${noId}`);
    expectError(refresh, 401, 'INVALID_TOKEN');
  });

  it('refuses a token of a user that does not exist', async () => {
    expectError(await verifyWithBearer(signAccess(accessClaims('user_1'))), 401, 'INVALID_TOKEN');
  });
});

describe('refresh rotation and logout', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ REFRESH_REUSE_GRACE: '10' });
  });
  afterAll(() => t.close());

  const refresh = (token: string) => refreshWith(t, token);

  it('rotates: new cookies, the user in the body, the old token retired', async () => {
    const session = await registerAndLogin(t);
    const response = await refresh(session.refresh).expect(200);
    expect(response.body).toEqual({
      success: true,
      message: 'Token refreshed',
      data: {
        user: expect.objectContaining({ id: session.user.id, email: session.user.email }),
        expires_in: 900,
      },
    });
    const cookies = cookiesOf(response);
    expect(cookies.refresh_token.value).not.toBe(session.refresh);
    expect(cookies.refresh_token.raw).toContain('Path=/api/v1/auth');
    await t
      .http()
      .get('/api/v1/auth/verify-token')
      .set('Authorization', `Bearer ${cookies.access_token.value}`)
      .expect(200);
    await refresh(cookies.refresh_token.value).expect(200);
  });

  it("keeps the session's auth_time and amr through every refresh, old tokens included", async () => {
    const session = await registerAndLogin(t);
    const loginClaims = jwt.decode(session.access) as { auth_time: number; amr: string[] };
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const first = cookiesOf(await refresh(session.refresh).expect(200));
    const second = cookiesOf(await refresh(first.refresh_token.value).expect(200));
    for (const cookies of [first, second]) {
      expect(jwt.decode(cookies.access_token.value)).toMatchObject({
        auth_time: loginClaims.auth_time,
        amr: ['pwd'],
      });
    }
    // A refresh token issued before its claims named the session's authentication: its row does.
    const older = jwt.decode(second.refresh_token.value) as Record<string, unknown>;
    delete older.ath;
    delete older.amr;
    const legacy = jwt.sign(older, REFRESH_SECRET, { algorithm: 'HS256' });
    const renewed = cookiesOf(await refresh(legacy).expect(200));
    expect(jwt.decode(renewed.access_token.value)).toMatchObject({
      auth_time: loginClaims.auth_time,
      amr: ['pwd'],
    });
  });

  it('answers parallel refreshes with one token with the same successor (parallel tabs)', async () => {
    const session = await registerAndLogin(t);
    const responses = await Promise.all(Array.from({ length: 6 }, () => refresh(session.refresh)));
    expect(responses.map((response) => response.status)).toEqual([200, 200, 200, 200, 200, 200]);
    const successors = new Set(
      responses.map((response) => cookiesOf(response).refresh_token.value),
    );
    expect(successors.size).toBe(1);
    const [successor] = successors;
    await refresh(successor).expect(200);
  });

  it('never issues two equal access tokens, even for one session in one second', async () => {
    const session = await registerAndLogin(t);
    // Parallel refreshes: one user, one session family, one token version, one or two seconds.
    const responses = await Promise.all(Array.from({ length: 6 }, () => refresh(session.refresh)));
    const tokens = responses.map((response) => cookiesOf(response).access_token.value);
    const claims = tokens.map((token) => jwt.decode(token) as Record<string, unknown>);
    // The largest group issued in one second: six requests do not take six seconds.
    const sameSecond = claims
      .map((first) => claims.filter((other) => other.iat === first.iat))
      .reduce((largest, group) => (group.length > largest.length ? group : largest));
    const [first] = sameSecond;
    expect(sameSecond.length).toBeGreaterThan(1);
    for (const other of sameSecond) {
      expect(other).toMatchObject({ sub: first.sub, sid: first.sid, ver: first.ver });
    }
    expect(new Set(tokens).size).toBe(tokens.length);
    expect(new Set(claims.map((other) => other.jti)).size).toBe(tokens.length);
  });

  it('answers a retired token inside the grace window with the live end of the chain', async () => {
    const session = await registerAndLogin(t);
    const second = cookiesOf(await refresh(session.refresh).expect(200)).refresh_token.value;
    const third = cookiesOf(await refresh(second).expect(200)).refresh_token.value;
    const late = await refresh(session.refresh).expect(200);
    expect(cookiesOf(late).refresh_token.value).toBe(third);
  });

  it('refuses an expired refresh token', async () => {
    const session = await registerAndLogin(t);
    const claims = jwt.decode(session.refresh) as Record<string, unknown>;
    const expired = jwt.sign({ ...claims, exp: now() - 5 }, REFRESH_SECRET);
    expectError(await refresh(expired), 401, 'INVALID_TOKEN');
  });

  it('refuses a request without a refresh cookie', async () => {
    expectError(await t.http().post('/api/v1/auth/refresh'), 401, 'INVALID_TOKEN');
  });

  it('logs out every device: both sessions lose access and refresh', async () => {
    const phone = await registerAndLogin(t);
    const laptopResponse = await t
      .http()
      .post('/api/v1/auth/login')
      .send({ email: phone.credentials.email, password: phone.credentials.password })
      .expect(200);
    const laptop = {
      access: cookiesOf(laptopResponse).access_token.value,
      refresh: cookiesOf(laptopResponse).refresh_token.value,
    };

    const out = await t
      .http()
      .post('/api/v1/auth/logout')
      .set('Cookie', `access_token=${phone.access}`)
      .expect(200);
    expect(out.body).toEqual({ success: true, message: expect.any(String) });
    const cleared = cookiesOf(out);
    expect(cleared.access_token.value).toBe('');
    expect(cleared.refresh_token.value).toBe('');
    // Written alike on both platforms: an empty value that expires now.
    expect(cleared.access_token.raw).toMatch(
      /^access_token=; Max-Age=0; Path=\/; Expires=[^;]+ GMT; HttpOnly; Secure; SameSite=Lax$/,
    );
    expect(cleared.refresh_token.raw).toMatch(
      /^refresh_token=; Max-Age=0; Path=\/api\/v1\/auth; Expires=[^;]+ GMT; HttpOnly; Secure; SameSite=Lax$/,
    );

    for (const access of [phone.access, laptop.access]) {
      expectError(
        await t.http().get('/api/v1/auth/verify-token').set('Authorization', `Bearer ${access}`),
        401,
        'INVALID_TOKEN',
      );
    }
    for (const token of [phone.refresh, laptop.refresh]) {
      expectError(await refresh(token), 401, 'INVALID_TOKEN');
    }
    // A new login after logout works as usual.
    await t
      .http()
      .post('/api/v1/auth/login')
      .send({ email: phone.credentials.email, password: phone.credentials.password })
      .expect(200);
  });

  it('never hands out an access token that outlives a logout racing the refresh', async () => {
    const phone = await registerAndLogin(t);
    const laptop = await login(t, phone.credentials);
    const rotations = t.app.get(SessionsService);
    const rotate = rotations.rotate.bind(rotations);
    // The real rotation runs; the phone's logout commits right after it, before the response.
    const spy = jest.spyOn(rotations, 'rotate').mockImplementation(async (claims) => {
      const result = await rotate(claims);
      await t
        .http()
        .post('/api/v1/auth/logout')
        .set('Authorization', `Bearer ${phone.access}`)
        .expect(200);
      return result;
    });
    const refreshed = await Promise.resolve(refresh(laptop.refresh)).finally(() =>
      spy.mockRestore(),
    );
    expect(refreshed.status).toBe(200);
    const access = cookiesOf(refreshed).access_token.value;
    expectError(
      await t.http().get('/api/v1/auth/verify-token').set('Authorization', `Bearer ${access}`),
      401,
      'INVALID_TOKEN',
    );
    expectError(await refresh(cookiesOf(refreshed).refresh_token.value), 401, 'INVALID_TOKEN');
  });

  it('logs out by the refresh cookie when the access token has expired', async () => {
    const session = await registerAndLogin(t);
    const expired = signAccess({
      ...accessClaims(session),
      iat: now() - 1000,
      exp: now() - 1,
    });
    await t
      .http()
      .post('/api/v1/auth/logout')
      .set('Cookie', `access_token=${expired}; refresh_token=${session.refresh}`)
      .expect(200);
    expectError(await refresh(session.refresh), 401, 'INVALID_TOKEN');
    // A refresh token that is no longer live cannot be used to log anyone out.
    expectError(
      await t.http().post('/api/v1/auth/logout').set('Cookie', `refresh_token=${session.refresh}`),
      401,
      'INVALID_TOKEN',
    );
  });

  it('logs out with a bearer token too, and refuses logout without one', async () => {
    const session = await registerAndLogin(t);
    await t
      .http()
      .post('/api/v1/auth/logout')
      .set('Authorization', `Bearer ${session.access}`)
      .expect(200);
    expectError(await t.http().post('/api/v1/auth/logout'), 401, 'INVALID_TOKEN');
  });
});

describe('refresh-token reuse after the grace window', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ REFRESH_REUSE_GRACE: '1' });
  });
  afterAll(() => t.close());

  const refresh = (token: string) => refreshWith(t, token);

  it('treats a late copy as theft: the family and its access tokens are revoked', async () => {
    const victim = await registerAndLogin(t);
    const otherDevice = await login(t, victim.credentials);
    const rotated = cookiesOf(await refresh(victim.refresh).expect(200));

    await new Promise((resolve) => setTimeout(resolve, 2100));
    const reuse = await refresh(victim.refresh);
    expectError(reuse, 401, 'INVALID_TOKEN');
    expect(cookiesOf(reuse).refresh_token.value).toBe('');

    // The thief's successor (and the legitimate one: they are the same family) is dead.
    expectError(await refresh(rotated.refresh_token.value), 401, 'INVALID_TOKEN');
    expectError(
      await t
        .http()
        .get('/api/v1/auth/verify-token')
        .set('Authorization', `Bearer ${rotated.access_token.value}`),
      401,
      'INVALID_TOKEN',
    );
    // Another device keeps its session: it renews through its own refresh token.
    const renewed = await refresh(otherDevice.refresh).expect(200);
    await t
      .http()
      .get('/api/v1/auth/verify-token')
      .set('Authorization', `Bearer ${cookiesOf(renewed).access_token.value}`)
      .expect(200);
  });
});
