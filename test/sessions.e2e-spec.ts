import * as jwt from 'jsonwebtoken';
import { Response } from 'supertest';
import { AuditTrail } from '../src/audit/audit-trail.service';
import { UserDirectory } from '../src/users/user-directory.service';
import { profileView } from '../src/users/user.view';
import {
  LoggedIn,
  cookiesOf,
  expectError,
  login,
  refreshWith,
  registerUser,
  uniqueUser,
} from './support/auth-helpers';
import { APP_ORIGIN, TestApp, startTestApp } from './support/test-app';

const FOREIGN_ORIGIN = 'https://evil.example.net';
const METRICS_TOKEN = 'sessions-metrics-token-0123456789abcdef';
const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0';
const PHONE = 'SessionsTest/2.0 (the phone app)';

/**
 * Issue 17, "my sessions": list, end one, end the others, and logout's scopes. Every ended
 * session's access token must be refused at once and its refresh token at its next use, while
 * the user's other sessions go on. The cache is warm for an hour, so no check can pass merely
 * because the copy it would have served had expired.
 */
describe('the signed-in user’s sessions', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ USER_CACHE_TTL: '3600', METRICS_TOKEN });
  });
  afterAll(() => t.close());

  interface Device extends Omit<LoggedIn, 'credentials'> {
    /** The session id: the access token's `sid`. */
    sid: string;
  }

  const loginFrom = async (
    credentials: { email: string; password: string },
    agent: string,
  ): Promise<Device> => {
    const response = await t
      .http()
      .post('/api/v1/auth/login')
      .set('User-Agent', agent)
      .send({ email: credentials.email, password: credentials.password })
      .expect(200);
    const cookies = cookiesOf(response);
    const access = cookies.access_token.value;
    return {
      user: response.body.data.user,
      access,
      refresh: cookies.refresh_token.value,
      sid: (jwt.decode(access) as { sid: string }).sid,
    };
  };
  /** One account logged in on `count` devices. */
  const devices = async (count: number) => {
    const { credentials, user } = await registerUser(t, uniqueUser('sessions'));
    const logins: Device[] = [];
    for (let i = 0; i < count; i++) logins.push(await loginFrom(credentials, `${PHONE} #${i}`));
    return { credentials, user, logins };
  };
  const bearer = (access: string) => ({ Authorization: `Bearer ${access}` });
  const list = (access: string) => t.http().get('/api/v1/users/me/sessions').set(bearer(access));
  const end = (access: string, id: string) =>
    t.http().delete(`/api/v1/users/me/sessions/${id}`).set(bearer(access));
  const endOthers = (access: string) =>
    t.http().post('/api/v1/users/me/sessions/end-others').set(bearer(access));
  const logout = (access: string, body?: object) => {
    const request = t.http().post('/api/v1/auth/logout').set(bearer(access));
    return body === undefined ? request : request.send(body);
  };
  const verify = (access: string) => t.http().get('/api/v1/auth/verify-token').set(bearer(access));
  /** The access token works (200) or is refused as revoked (401 INVALID_TOKEN). */
  const accepted = async (access: string): Promise<boolean> => {
    const response = await verify(access);
    if (response.status === 200) return true;
    expectError(response, 401, 'INVALID_TOKEN');
    return false;
  };
  const refreshed = async (refresh: string): Promise<boolean> => {
    const response = await refreshWith(t, refresh);
    if (response.status === 200) return true;
    expectError(response, 401, 'INVALID_TOKEN');
    return false;
  };
  const listedIds = async (access: string) =>
    ((await list(access).expect(200)).body.data.sessions as Array<{ id: string }>).map(
      (session) => session.id,
    );
  const clearedCookies = (response: Response) => {
    const cookies = cookiesOf(response);
    return ['access_token', 'refresh_token'].every(
      (name) => cookies[name]?.value === '' && /Max-Age=0/i.test(cookies[name].raw),
    );
  };

  describe('GET /users/me/sessions', () => {
    it('lists two logins as two sessions, with their user agents, the caller’s marked current', async () => {
      const { credentials } = await registerUser(t, uniqueUser('sessions'));
      const laptop = await loginFrom(credentials, FIREFOX);
      const phone = await loginFrom(credentials, PHONE);

      const fromLaptop = await list(laptop.access).expect(200);
      expect(fromLaptop.body).toEqual({
        success: true,
        message: 'Active sessions',
        data: { sessions: expect.any(Array) },
      });
      const sessions = fromLaptop.body.data.sessions as Array<Record<string, unknown>>;
      expect(sessions).toHaveLength(2);
      const session = {
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        last_used_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        expires_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        ip: expect.stringMatching(/127\.0\.0\.1|::1/),
      };
      expect(sessions).toEqual(
        expect.arrayContaining([
          { ...session, id: laptop.sid, user_agent: FIREFOX, current: true },
          { ...session, id: phone.sid, user_agent: PHONE, current: false },
        ]),
      );
      // The same list from the phone: only the current flag moves.
      const fromPhone = (await list(phone.access).expect(200)).body.data.sessions as Array<{
        id: string;
        current: boolean;
      }>;
      expect(fromPhone.find((s) => s.current)?.id).toBe(phone.sid);
      expect(fromPhone.filter((s) => s.current)).toHaveLength(1);
      // Other users' sessions never appear.
      const stranger = await devices(1);
      expect(await listedIds(stranger.logins[0].access)).toEqual([stranger.logins[0].sid]);
    });

    it('moves last_used_at on refresh, newest use first, and keeps the session’s id and start', async () => {
      const { credentials } = await registerUser(t, uniqueUser('sessions'));
      const first = await loginFrom(credentials, FIREFOX);
      const second = await loginFrom(credentials, PHONE);
      // Times are kept to the second: a refresh in the next second is a later use.
      await new Promise((resolve) => setTimeout(resolve, 1100));
      const rotated = await refreshWith(t, first.refresh).set('User-Agent', 'Another agent');
      expect(rotated.status).toBe(200);
      const newAccess = cookiesOf(rotated).access_token.value;
      expect((jwt.decode(newAccess) as { sid: string }).sid).toBe(first.sid);

      const sessions = (await list(second.access).expect(200)).body.data.sessions as Array<{
        id: string;
        created_at: string;
        last_used_at: string;
        expires_at: string;
        user_agent: string;
      }>;
      // The refreshed session was used last: it comes first.
      expect(sessions.map((s) => s.id)).toEqual([first.sid, second.sid]);
      const [refreshedSession, untouched] = sessions;
      expect(Date.parse(refreshedSession.last_used_at)).toBeGreaterThan(
        Date.parse(refreshedSession.created_at),
      );
      expect(untouched.last_used_at).toBe(untouched.created_at);
      // Defaults: the refresh token's week ends before the session's thirty days, and slides.
      for (const session of sessions) {
        expect(Date.parse(session.expires_at) - Date.parse(session.last_used_at)).toBe(
          7 * 86_400_000,
        );
      }
      // The login's client, not the refresh's.
      expect(refreshedSession.user_agent).toBe(FIREFOX);
      // Both the old and the new access token of a live session work.
      expect(await accepted(first.access)).toBe(true);
      expect(await accepted(newAccess)).toBe(true);
    });

    it('refuses a missing or revoked token with 401 INVALID_TOKEN', async () => {
      expectError(await t.http().get('/api/v1/users/me/sessions'), 401, 'INVALID_TOKEN');
      const { logins } = await devices(1);
      await logout(logins[0].access).expect(200);
      expectError(await list(logins[0].access), 401, 'INVALID_TOKEN');
    });
  });

  describe('DELETE /users/me/sessions/:id', () => {
    it('ends another session: its access token refused at once, its refresh token too, mine untouched', async () => {
      const { logins } = await devices(3);
      const [mine, ended, third] = logins;
      // Warm: every token checked once, so the cache holds the three live sessions.
      for (const device of logins) expect(await accepted(device.access)).toBe(true);

      const response = await end(mine.access, ended.sid).expect(200);
      expect(response.body).toEqual({
        success: true,
        message: 'Session ended',
        data: { current: false },
      });
      expect(response.headers['set-cookie']).toBeUndefined();

      expect(await accepted(ended.access)).toBe(false);
      expectError(await list(ended.access), 401, 'INVALID_TOKEN');
      expect(await refreshed(ended.refresh)).toBe(false);
      expect(await accepted(mine.access)).toBe(true);
      expect(await accepted(third.access)).toBe(true);
      expect(await refreshed(third.refresh)).toBe(true);
      expect((await listedIds(mine.access)).sort()).toEqual([mine.sid, third.sid].sort());
    });

    it('answers 404 SESSION_NOT_FOUND, the same way, for another user’s, an unknown and an ended session', async () => {
      const me = await devices(2);
      const other = await devices(1);
      const [mine, second] = me.logins;

      const answers = [
        await end(mine.access, other.logins[0].sid),
        await end(mine.access, '00000000-0000-4000-8000-000000000000'),
        await end(mine.access, 'not-a-session-id'),
        await end(mine.access, 'x'.repeat(300)),
      ];
      await end(mine.access, second.sid).expect(200);
      answers.push(await end(mine.access, second.sid));
      for (const answer of answers) {
        expectError(answer, 404, 'SESSION_NOT_FOUND');
        expect(answer.body.message).toBe(answers[0].body.message);
      }
      // The other user's session was not touched.
      expect(await accepted(other.logins[0].access)).toBe(true);
      expect(await refreshed(other.logins[0].refresh)).toBe(true);
    });

    it('ends the current session: a logout of this device, cookies cleared', async () => {
      const { logins } = await devices(2);
      const [mine, other] = logins;
      const response = await end(mine.access, mine.sid).expect(200);
      expect(response.body.data).toEqual({ current: true });
      expect(clearedCookies(response)).toBe(true);
      expect(await accepted(mine.access)).toBe(false);
      expect(await refreshed(mine.refresh)).toBe(false);
      expect(await accepted(other.access)).toBe(true);
    });

    it('applies the CSRF origin rule to a cookie-authenticated call, not to a bearer one', async () => {
      const { logins } = await devices(3);
      const [mine, target, last] = logins;
      const byCookie = (origin: string, id: string) =>
        t
          .http()
          .delete(`/api/v1/users/me/sessions/${id}`)
          .set('Origin', origin)
          .set('Cookie', `access_token=${mine.access}`);

      expectError(await byCookie(FOREIGN_ORIGIN, target.sid), 403, 'FORBIDDEN_ORIGIN');
      expectError(
        await t
          .http()
          .delete(`/api/v1/users/me/sessions/${target.sid}`)
          .set('Sec-Fetch-Site', 'cross-site')
          .set('Cookie', `access_token=${mine.access}`),
        403,
        'FORBIDDEN_ORIGIN',
      );
      expect(await accepted(target.access)).toBe(true);

      await byCookie(APP_ORIGIN, target.sid).expect(200);
      expect(await accepted(target.access)).toBe(false);
      // A bearer token is not sent by the browser on its own: no origin rule.
      await end(mine.access, last.sid).set('Origin', FOREIGN_ORIGIN).expect(200);
    });

    it('leaves nothing alive when a refresh of the session races its ending (20 trials)', async () => {
      const survivors: string[] = [];
      for (let trial = 0; trial < 20; trial++) {
        const { logins } = await devices(2);
        const [mine, target] = logins;
        const [rotated, ended] = await Promise.all([
          refreshWith(t, target.refresh),
          end(mine.access, target.sid),
        ]);
        expect(ended.status).toBe(200);
        // Whichever came first, the session is over: a successor the refresh may have issued
        // is refused too, access and refresh token alike.
        if (rotated.status === 200) {
          const cookies = cookiesOf(rotated);
          if (await accepted(cookies.access_token.value)) survivors.push(`${trial} access`);
          if (await refreshed(cookies.refresh_token.value)) survivors.push(`${trial} refresh`);
        } else {
          expectError(rotated, 401, 'INVALID_TOKEN');
        }
        expect(await accepted(target.access)).toBe(false);
        expect(await accepted(mine.access)).toBe(true);
      }
      expect(survivors).toEqual([]);
    });

    it('refuses a missing token with 401 INVALID_TOKEN', async () => {
      const { logins } = await devices(1);
      expectError(
        await t.http().delete(`/api/v1/users/me/sessions/${logins[0].sid}`),
        401,
        'INVALID_TOKEN',
      );
      expect(await accepted(logins[0].access)).toBe(true);
    });
  });

  describe('POST /users/me/sessions/end-others', () => {
    it('ends every session but mine, whose cookies and tokens go on', async () => {
      const { logins } = await devices(3);
      const [mine, ...others] = logins;
      for (const device of logins) expect(await accepted(device.access)).toBe(true);

      const response = await endOthers(mine.access).expect(200);
      expect(response.body).toEqual({
        success: true,
        message: 'Other sessions ended',
        data: { ended: 2 },
      });
      expect(response.headers['set-cookie']).toBeUndefined();
      for (const other of others) {
        expect(await accepted(other.access)).toBe(false);
        expect(await refreshed(other.refresh)).toBe(false);
      }
      expect(await accepted(mine.access)).toBe(true);
      expect(await listedIds(mine.access)).toEqual([mine.sid]);
      expect(await refreshed(mine.refresh)).toBe(true);
      // Nothing left to end.
      expect((await endOthers(mine.access).expect(200)).body.data).toEqual({ ended: 0 });
    });

    it('by cookie: refused from a foreign origin, allowed from the app', async () => {
      const { logins } = await devices(2);
      const [mine, other] = logins;
      const byCookie = (origin: string) =>
        t
          .http()
          .post('/api/v1/users/me/sessions/end-others')
          .set('Origin', origin)
          .set('Cookie', `access_token=${mine.access}`);
      expectError(await byCookie(FOREIGN_ORIGIN), 403, 'FORBIDDEN_ORIGIN');
      expect(await accepted(other.access)).toBe(true);
      await byCookie(APP_ORIGIN).expect(200);
      expect(await accepted(other.access)).toBe(false);
      expectError(
        await t.http().post('/api/v1/users/me/sessions/end-others'),
        401,
        'INVALID_TOKEN',
      );
    });
  });

  describe('POST /auth/logout with a scope', () => {
    it('without a body ends every session, as before: all tokens refused, cookies cleared', async () => {
      const { logins } = await devices(2);
      const response = await logout(logins[0].access).expect(200);
      expect(response.body).toEqual({ success: true, message: 'Logged out from all devices' });
      expect(clearedCookies(response)).toBe(true);
      for (const device of logins) {
        expect(await accepted(device.access)).toBe(false);
        expect(await refreshed(device.refresh)).toBe(false);
      }
    });

    it('scope all, and an empty object, are the same', async () => {
      for (const body of [{ scope: 'all' }, {}]) {
        const { logins } = await devices(2);
        const response = await logout(logins[1].access, body).expect(200);
        expect(response.body.message).toBe('Logged out from all devices');
        expect(clearedCookies(response)).toBe(true);
        for (const device of logins) expect(await accepted(device.access)).toBe(false);
      }
    });

    it('scope current by bearer ends only this session, cookies cleared', async () => {
      const { logins } = await devices(2);
      const [mine, other] = logins;
      const response = await logout(mine.access, { scope: 'current' }).expect(200);
      expect(response.body).toEqual({ success: true, message: 'Logged out from this session' });
      expect(clearedCookies(response)).toBe(true);
      expect(await accepted(mine.access)).toBe(false);
      expect(await refreshed(mine.refresh)).toBe(false);
      expect(await accepted(other.access)).toBe(true);
      expect(await listedIds(other.access)).toEqual([other.sid]);
    });

    it('scope current by cookies, from the app’s origin', async () => {
      const { logins } = await devices(2);
      const [mine, other] = logins;
      const response = await t
        .http()
        .post('/api/v1/auth/logout')
        .set('Origin', APP_ORIGIN)
        .set('Cookie', `access_token=${mine.access}; refresh_token=${mine.refresh}`)
        .send({ scope: 'current' })
        .expect(200);
      expect(clearedCookies(response)).toBe(true);
      expect(await accepted(mine.access)).toBe(false);
      expect(await accepted(other.access)).toBe(true);
      expectError(
        await t
          .http()
          .post('/api/v1/auth/logout')
          .set('Origin', FOREIGN_ORIGIN)
          .set('Cookie', `access_token=${other.access}`)
          .send({ scope: 'current' }),
        403,
        'FORBIDDEN_ORIGIN',
      );
      expect(await accepted(other.access)).toBe(true);
    });

    it('scope current by the refresh cookie alone (access token expired) ends that session', async () => {
      const { logins } = await devices(2);
      const [mine, other] = logins;
      await t
        .http()
        .post('/api/v1/auth/logout')
        .set('Cookie', `refresh_token=${mine.refresh}`)
        .send({ scope: 'current' })
        .expect(200);
      expect(await accepted(mine.access)).toBe(false);
      expect(await refreshed(mine.refresh)).toBe(false);
      expect(await accepted(other.access)).toBe(true);
    });

    it('scope others by bearer ends the others and keeps this session and its cookies', async () => {
      const { logins } = await devices(3);
      const [mine, ...others] = logins;
      for (const device of logins) expect(await accepted(device.access)).toBe(true);
      const response = await logout(mine.access, { scope: 'others' }).expect(200);
      expect(response.body).toEqual({
        success: true,
        message: 'Logged out from 2 other sessions',
      });
      expect(response.headers['set-cookie']).toBeUndefined();
      for (const other of others) {
        expect(await accepted(other.access)).toBe(false);
        expect(await refreshed(other.refresh)).toBe(false);
      }
      expect(await accepted(mine.access)).toBe(true);
      expect(await refreshed(mine.refresh)).toBe(true);
    });

    it('scope others by the refresh cookie alone keeps the refresh token’s session', async () => {
      const { logins } = await devices(2);
      const [mine, other] = logins;
      const response = await t
        .http()
        .post('/api/v1/auth/logout')
        .set('Cookie', `refresh_token=${mine.refresh}`)
        .send({ scope: 'others' })
        .expect(200);
      expect(response.body.message).toBe('Logged out from 1 other session');
      expect(await accepted(other.access)).toBe(false);
      expect(await accepted(mine.access)).toBe(true);
      expect(await refreshed(mine.refresh)).toBe(true);
    });

    it.each([
      ['an unknown scope', { scope: 'everything' }],
      ['null', { scope: null }],
      ['a number', { scope: 1 }],
      ['a field it does not take', { scope: 'all', devices: 'all' }],
    ])('answers %s with 400 VALIDATION_ERROR and ends nothing', async (_case, body) => {
      const { logins } = await devices(2);
      const response = await logout(logins[0].access, body);
      expectError(response, 400, 'VALIDATION_ERROR');
      expect(response.body.details?.length).toBeGreaterThan(0);
      expect(response.headers['set-cookie']).toBeUndefined();
      for (const device of logins) expect(await accepted(device.access)).toBe(true);
    });

    it('names the allowed scopes in the message of a bad one', async () => {
      const { logins } = await devices(1);
      const response = await logout(logins[0].access, { scope: 'mine' });
      expect(response.body.details).toEqual([
        { field: 'scope', message: 'scope must be one of: current, others, all' },
      ]);
    });

    it('checks the token before the body: a bad scope without a token is 401', async () => {
      expectError(
        await t.http().post('/api/v1/auth/logout').send({ scope: 'bad' }),
        401,
        'INVALID_TOKEN',
      );
    });
  });

  it('serves the user exactly as stored from the check that reads it with its sessions', async () => {
    const { user, logins } = await devices(1);
    const directory = t.app.get(UserDirectory);
    await directory.setRole(user.id, 'admin');
    const stored = await directory.find(user.id);
    const served = await t.http().get('/api/v1/users/me').set(bearer(logins[0].access)).expect(200);
    // Dates, booleans and nulls as the entity reads them (a date read as local time would move).
    const proofs = { hasPassword: true, methods: ['password', 'email_code'] as const };
    expect(served.body.data.user).toEqual(
      JSON.parse(JSON.stringify(profileView(stored!, { ...proofs, methods: [...proofs.methods] }))),
    );
    expect(served.body.data.user).toMatchObject({ role: 'admin', email_verified: false });
  });

  it('keeps the audit trail: session_ended and logout, each naming its session', async () => {
    const { user, logins } = await devices(5);
    const [mine, deleted, other1, other2, last] = logins;
    const before = await t
      .http()
      .get('/metrics')
      .set('Authorization', `Bearer ${METRICS_TOKEN}`)
      .expect(200);
    const endedBefore = revocations(before.text, 'session_ended');
    const logoutsBefore = revocations(before.text, 'logout');
    await end(mine.access, deleted.sid).expect(200);
    await logout(last.access, { scope: 'current' }).expect(200);
    await endOthers(mine.access).expect(200);
    await logout(mine.access).expect(200);

    const events = (await t.app.get(AuditTrail).forUser(user.id))
      .filter((event) => ['session_ended', 'logout'].includes(event.type))
      .map((event) => `${event.type} ${event.sessionId}`);
    // Counted as revocations once committed: the three session_ended events.
    const metrics = await t
      .http()
      .get('/metrics')
      .set('Authorization', `Bearer ${METRICS_TOKEN}`)
      .expect(200);
    expect(revocations(metrics.text, 'session_ended') - endedBefore).toBe(3);
    expect(revocations(metrics.text, 'logout') - logoutsBefore).toBe(2);
    // Some land in the same millisecond: compared in any order.
    expect(events.sort()).toEqual(
      [
        `session_ended ${deleted.sid}`,
        `logout ${last.sid}`,
        `session_ended ${other1.sid}`,
        `session_ended ${other2.sid}`,
        'logout null',
      ].sort(),
    );
  });
});

// Its own app, started after the one above has closed: passport's strategies are process-wide.
describe('expired sessions', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ ACCESS_TOKEN_TTL: '2', REFRESH_TOKEN_TTL: '3' });
  });
  afterAll(() => t.close());

  it('are neither listed nor endable: 404 SESSION_NOT_FOUND', async () => {
    const { credentials } = await registerUser(t, uniqueUser('expiry'));
    const old = await login(t, credentials);
    const oldSid = (jwt.decode(old.access) as { sid: string }).sid;
    await new Promise((resolve) => setTimeout(resolve, 3100));
    const fresh = await login(t, credentials);
    const freshSid = (jwt.decode(fresh.access) as { sid: string }).sid;
    const listed = await t
      .http()
      .get('/api/v1/users/me/sessions')
      .set('Authorization', `Bearer ${fresh.access}`)
      .expect(200);
    const sessions = listed.body.data.sessions as Array<{ id: string }>;
    expect(sessions.map((session) => session.id)).toEqual([freshSid]);
    expectError(
      await t
        .http()
        .delete(`/api/v1/users/me/sessions/${oldSid}`)
        .set('Authorization', `Bearer ${fresh.access}`),
      404,
      'SESSION_NOT_FOUND',
    );
    expect(
      (
        await t
          .http()
          .post('/api/v1/users/me/sessions/end-others')
          .set('Authorization', `Bearer ${fresh.access}`)
          .expect(200)
      ).body.data,
    ).toEqual({ ended: 0 });
  });
});

/** The value of `auth_revocations_total{reason="…"}` in a Prometheus text answer (0 if absent). */
function revocations(text: string, reason: string): number {
  const series = `auth_revocations_total{reason="${reason}"} `;
  const line = text.split('\n').find((candidate) => candidate.startsWith(series));
  return line ? Number(line.slice(series.length)) : 0;
}
