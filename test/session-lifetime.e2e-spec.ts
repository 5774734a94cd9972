import * as jwt from 'jsonwebtoken';
import { Response } from 'supertest';
import { RefreshSession } from '../src/sessions/refresh-session.entity';
import { LoggedIn, cookiesOf, expectError, registerAndLogin } from './support/auth-helpers';
import { APP_ORIGIN, REFRESH_SECRET, TestApp, startTestApp } from './support/test-app';

const HOUR = 3600;

/**
 * The absolute session lifetime (issue 22, item 8; ASVS 7.3.2): a session ends SESSION_MAX_AGE
 * after its login however often it was refreshed, and no cookie or token outlives that end.
 * Requests are what a browser on the app's origin sends, unless a non-browser client is meant.
 */
describe('SESSION_MAX_AGE shorter than REFRESH_TOKEN_TTL', () => {
  const MAX_AGE = 3;
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ SESSION_MAX_AGE: String(MAX_AGE), REFRESH_TOKEN_TTL: String(HOUR) });
  });
  afterAll(() => t.close());

  const refresh = (token: string) =>
    t
      .http()
      .post('/api/v1/auth/refresh')
      .set('Origin', APP_ORIGIN)
      .set('Cookie', `refresh_token=${token}`);

  it('refreshes until SESSION_MAX_AGE after the login, never past it, then refuses with the cookies cleared', async () => {
    const session = await registerAndLogin(t);
    const end = claimsOf(session.refresh).iat + MAX_AGE;
    expect(claimsOf(session.refresh).exp).toBe(end);
    expect(maxAgeOf(cookiesOf(await loginAgain(t, session)), 'refresh_token')).toBeLessThanOrEqual(
      MAX_AGE,
    );

    let token = session.refresh;
    for (let i = 0; i < 2; i++) {
      const response = await refresh(token).expect(200);
      token = cookiesOf(response).refresh_token.value;
      // The successor ends with the session, not REFRESH_TOKEN_TTL after this refresh.
      expect(claimsOf(token).exp).toBe(end);
      expect(maxAgeOf(cookiesOf(response), 'refresh_token')).toBeLessThanOrEqual(
        end - claimsOf(token).iat,
      );
    }

    await until(end);
    const refused = await refresh(token);
    expectError(refused, 401, 'INVALID_TOKEN');
    expectCleared(refused);
  });

  it('gives a non-browser client (body tokens) no refresh token past the end either', async () => {
    const session = await registerAndLogin(t);
    const end = claimsOf(session.refresh).iat + MAX_AGE;
    const response = await t
      .http()
      .post('/api/v1/auth/refresh')
      .set('X-Token-Delivery', 'body')
      .set('Cookie', `refresh_token=${session.refresh}`)
      .expect(200);
    expect(claimsOf(response.body.refresh_token as string).exp).toBe(end);
  });

  it('issues no access token that outlives the session either', async () => {
    const session = await registerAndLogin(t);
    const end = claimsOf(session.refresh).iat + MAX_AGE;
    expect(claimsOf(session.access).exp).toBe(end);
    const refreshed = await refresh(session.refresh).expect(200);
    const renewed = claimsOf(cookiesOf(refreshed).access_token.value);
    expect(renewed.exp).toBe(end);
    expect(maxAgeOf(cookiesOf(refreshed), 'access_token')).toBeLessThanOrEqual(MAX_AGE);
    // A page renewing ahead hears the shortened lifetime, not ACCESS_TOKEN_TTL.
    expect(refreshed.body.data.expires_in).toBe(renewed.exp - renewed.iat);
    const body = await t
      .http()
      .post('/api/v1/auth/login')
      .set('X-Token-Delivery', 'body')
      .send({ email: session.credentials.email, password: session.credentials.password })
      .expect(200);
    expect(body.body.expires_in).toBeLessThanOrEqual(MAX_AGE);
    expect(claimsOf(body.body.access_token as string).exp).toBe(
      claimsOf(body.body.refresh_token as string).exp,
    );
  });

  it('lists when the session ends: its login plus SESSION_MAX_AGE', async () => {
    const session = await registerAndLogin(t);
    const login = claimsOf(session.refresh).iat;
    const listed = await t
      .http()
      .get('/api/v1/users/me/sessions')
      .set('Authorization', `Bearer ${session.access}`)
      .expect(200);
    expect(listed.body.data.sessions).toEqual([
      expect.objectContaining({
        created_at: isoAt(login),
        expires_at: isoAt(login + MAX_AGE),
        current: true,
      }),
    ]);
  });
});

describe('a session older than SESSION_MAX_AGE (the operator lowered it, or an old row)', () => {
  let t: TestApp;
  beforeAll(async () => {
    // REFRESH_TOKEN_TTL keeps its default, a week: longer than the sessions may last.
    t = await startTestApp({ SESSION_MAX_AGE: String(HOUR), REFRESH_REUSE_GRACE: '30' });
  });
  afterAll(() => t.close());

  const refresh = (token: string) =>
    t
      .http()
      .post('/api/v1/auth/refresh')
      .set('Origin', APP_ORIGIN)
      .set('Cookie', `refresh_token=${token}`);
  const sessions = () => t.dataSource.getRepository(RefreshSession);
  /** Moves the session's login back in time, as if it had begun that long ago. */
  const beganAgo = (token: string, seconds: number) =>
    sessions().update(
      { familyId: claimsOf(token).fam },
      { startedAt: new Date(Date.now() - seconds * 1000) },
    );

  it('caps a new session’s refresh cookie at SESSION_MAX_AGE', async () => {
    const session = await registerAndLogin(t);
    const claims = claimsOf(session.refresh);
    expect(claims.exp - claims.iat).toBe(HOUR);
  });

  it('ends it at its next refresh, though its refresh token has not expired', async () => {
    const session = await registerAndLogin(t);
    await beganAgo(session.refresh, HOUR + 60);
    const refused = await refresh(session.refresh);
    expectError(refused, 401, 'INVALID_TOKEN');
    expectCleared(refused);
  });

  it('ends it in the grace window too: a parallel tab’s copy gets no successor', async () => {
    const session = await registerAndLogin(t);
    const successor = cookiesOf(await refresh(session.refresh).expect(200)).refresh_token.value;
    await beganAgo(session.refresh, HOUR + 60);
    expectError(await refresh(session.refresh), 401, 'INVALID_TOKEN');
    expectError(await refresh(successor), 401, 'INVALID_TOKEN');
  });

  it('no longer lists it, and its refresh cookie cannot log out', async () => {
    const session = await registerAndLogin(t);
    await beganAgo(session.refresh, HOUR + 60);
    const listed = await t
      .http()
      .get('/api/v1/users/me/sessions')
      .set('Authorization', `Bearer ${session.access}`)
      .expect(200);
    expect(listed.body.data.sessions).toEqual([]);
    const logout = await t
      .http()
      .post('/api/v1/auth/logout')
      .set('Origin', APP_ORIGIN)
      .set('Cookie', `refresh_token=${session.refresh}`);
    expectError(logout, 401, 'INVALID_TOKEN');
  });

  describe('a row without started_at (written by a version that did not know it)', () => {
    /** The token such a version issued: no session start among its claims. */
    const legacy = async (session: LoggedIn, createdAgo: number) => {
      const { iat, exp, sub, jti, fam } = claimsOf(session.refresh);
      await sessions().update(
        { familyId: fam },
        { startedAt: null, createdAt: new Date((iat - createdAgo) * 1000) },
      );
      return jwt.sign({ sub, typ: 'refresh', jti, fam, iat, exp }, REFRESH_SECRET);
    };

    it('counts the session from that row’s own creation, the earliest time known of it', async () => {
      const session = await registerAndLogin(t);
      const token = await legacy(session, 600);
      const start = claimsOf(session.refresh).iat - 600;

      const response = await refresh(token).expect(200);
      const successor = cookiesOf(response).refresh_token.value;
      expect(claimsOf(successor).exp).toBe(start + HOUR);
      const listed = await t
        .http()
        .get('/api/v1/users/me/sessions')
        .set('Authorization', `Bearer ${cookiesOf(response).access_token.value}`)
        .expect(200);
      expect(listed.body.data.sessions).toEqual([
        expect.objectContaining({ created_at: isoAt(start), expires_at: isoAt(start + HOUR) }),
      ]);
    });

    it('ends it when that creation is older than SESSION_MAX_AGE', async () => {
      const session = await registerAndLogin(t);
      const token = await legacy(session, HOUR + 60);
      const refused = await refresh(token);
      expectError(refused, 401, 'INVALID_TOKEN');
      expectCleared(refused);
    });
  });
});

describe('SESSION_MAX_AGE longer than REFRESH_TOKEN_TTL', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({
      SESSION_MAX_AGE: String(30 * 24 * HOUR),
      REFRESH_TOKEN_TTL: '600',
      ACCESS_TOKEN_TTL: '300',
    });
  });
  afterAll(() => t.close());

  it('leaves the sliding expiry alone: each refresh token lasts REFRESH_TOKEN_TTL, and the list says so', async () => {
    const session = await registerAndLogin(t);
    const refreshed = await t
      .http()
      .post('/api/v1/auth/refresh')
      .set('Origin', APP_ORIGIN)
      .set('Cookie', `refresh_token=${session.refresh}`)
      .expect(200);
    const token = cookiesOf(refreshed).refresh_token.value;
    expect(claimsOf(token).exp - claimsOf(token).iat).toBe(600);
    expect(maxAgeOf(cookiesOf(refreshed), 'refresh_token')).toBeGreaterThan(590);
    const listed = await t
      .http()
      .get('/api/v1/users/me/sessions')
      .set('Authorization', `Bearer ${cookiesOf(refreshed).access_token.value}`)
      .expect(200);
    expect(listed.body.data.sessions).toEqual([
      expect.objectContaining({ expires_at: isoAt(claimsOf(token).exp) }),
    ]);
  });
});

interface RefreshClaims {
  sub: string;
  jti: string;
  fam: string;
  iat: number;
  exp: number;
}

function claimsOf(token: string): RefreshClaims {
  return jwt.decode(token) as RefreshClaims;
}

function isoAt(epochSeconds: number): string {
  return new Date(epochSeconds * 1000).toISOString();
}

/** The cookie's Max-Age, in seconds. */
function maxAgeOf(cookies: ReturnType<typeof cookiesOf>, name: string): number {
  const match = /Max-Age=(\d+)/.exec(cookies[name]?.raw ?? '');
  if (!match) throw new Error(`${name} has no Max-Age`);
  return Number(match[1]);
}

async function loginAgain(t: TestApp, session: LoggedIn): Promise<Response> {
  return t
    .http()
    .post('/api/v1/auth/login')
    .set('Origin', APP_ORIGIN)
    .send({ email: session.credentials.email, password: session.credentials.password })
    .expect(200);
}

/** Waits until the clock has passed `epochSeconds`. */
async function until(epochSeconds: number): Promise<void> {
  const wait = epochSeconds * 1000 + 50 - Date.now();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
}

/** Both cookies emptied and expired, on their own paths. */
function expectCleared(response: Response): void {
  const cookies = cookiesOf(response);
  for (const [name, path] of [
    ['access_token', '/'],
    ['refresh_token', '/api/v1/auth'],
  ]) {
    expect(cookies[name]?.value).toBe('');
    expect(cookies[name].raw).toMatch(/Max-Age=0/);
    expect(cookies[name].raw).toContain(`Path=${path};`);
  }
}
