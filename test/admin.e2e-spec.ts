import { AuditEvent } from '../src/audit/audit-event.entity';
import { RefreshSession } from '../src/sessions/refresh-session.entity';
import { VerificationToken } from '../src/tokens/verification-token.entity';
import { UserDirectory } from '../src/users/user-directory.service';
import {
  LoggedIn,
  PASSWORD,
  cookiesOf,
  expectError,
  login,
  refreshWith,
  registerAndLogin,
  registerUser,
  uniqueUser,
} from './support/auth-helpers';
import { APP_ORIGIN, TestApp, startTestApp } from './support/test-app';

const ADMIN = '/api/v1/admin/users';

/**
 * Issue 17, administration: every /admin/users route as an administrator, refused to a user
 * (403 FORBIDDEN) and to nobody (401), and what each change does to the account's tokens,
 * logins and audit trail. Runs on SQLite and, in CI's second pass, on MariaDB.
 */
describe('administration of accounts', () => {
  let t: TestApp;
  let admin: LoggedIn;
  let plain: LoggedIn;

  beforeAll(async () => {
    t = await startTestApp();
    admin = await registerAndLogin(t, uniqueUser('admin'));
    // The first administrator comes from the operator, never the API: here, the directory.
    await t.app.get(UserDirectory).setRole(admin.user.id, 'admin');
    plain = await registerAndLogin(t, uniqueUser('plain'));
  });
  afterAll(() => t.close());

  const as = (session: { access: string } | undefined) => {
    const auth = <R extends { set(name: string, value: string): R }>(request: R): R =>
      session ? request.set('Authorization', `Bearer ${session.access}`) : request;
    return {
      get: (path: string) => auth(t.http().get(path)),
      post: (path: string, body?: object) => auth(t.http().post(path)).send(body),
      patch: (path: string, body?: object) => auth(t.http().patch(path)).send(body),
      delete: (path: string, body?: object) => auth(t.http().delete(path)).send(body),
    };
  };
  const verify = (access: string) =>
    t.http().get('/api/v1/auth/verify-token').set('Authorization', `Bearer ${access}`);
  const loginAs = (email: string, password = PASSWORD) =>
    t.http().post('/api/v1/auth/login').send({ email, password });
  const events = (userId: string) =>
    t.dataSource.getRepository(AuditEvent).find({ where: { userId }, order: { createdAt: 'ASC' } });

  describe('who may call it', () => {
    const routes = (id: string): Array<[string, (s?: LoggedIn) => PromiseLike<unknown>]> => [
      ['list', (s) => as(s).get(ADMIN)],
      ['get', (s) => as(s).get(`${ADMIN}/${id}`)],
      ['role', (s) => as(s).patch(`${ADMIN}/${id}/role`, { role: 'admin' })],
      ['disable', (s) => as(s).post(`${ADMIN}/${id}/disable`)],
      ['enable', (s) => as(s).post(`${ADMIN}/${id}/enable`)],
      ['end sessions', (s) => as(s).post(`${ADMIN}/${id}/sessions/end`)],
      ['password reset', (s) => as(s).post(`${ADMIN}/${id}/password-reset`)],
      ['delete', (s) => as(s).delete(`${ADMIN}/${id}`)],
    ];

    it('refuses every route to a signed-in user with 403 FORBIDDEN, changing nothing', async () => {
      const target = await registerAndLogin(t);
      for (const [, send] of routes(target.user.id)) {
        expectError((await send(plain)) as never, 403, 'FORBIDDEN');
      }
      // Still there, still a user, still signed in.
      await verify(target.access).expect(200);
      const stored = await t.app.get(UserDirectory).find(target.user.id);
      expect(stored).toMatchObject({ role: 'user', disabledAt: null });
    });

    it('refuses every route to nobody with 401 INVALID_TOKEN', async () => {
      for (const [, send] of routes(plain.user.id)) {
        expectError((await send(undefined)) as never, 401, 'INVALID_TOKEN');
      }
    });

    it('refuses a cookie-authenticated change from a foreign origin (CSRF)', async () => {
      const target = await registerAndLogin(t);
      const response = await t
        .http()
        .post(`${ADMIN}/${target.user.id}/disable`)
        .set('Origin', 'https://evil.example.net')
        .set('Cookie', `access_token=${admin.access}`);
      expectError(response, 403, 'FORBIDDEN_ORIGIN');
      await verify(target.access).expect(200);
      // From the app's own origin the cookie works.
      await t
        .http()
        .post(`${ADMIN}/${target.user.id}/disable`)
        .set('Origin', APP_ORIGIN)
        .set('Cookie', `access_token=${admin.access}`)
        .expect(200);
    });
  });

  describe('GET /admin/users', () => {
    const tag = `ls${Date.now().toString(36)}`;
    const made: string[] = [];
    beforeAll(async () => {
      for (let i = 0; i < 5; i++) made.push((await registerUser(t, uniqueUser(`${tag}n`))).user.id);
    });
    const list = (query: string) => as(admin).get(`${ADMIN}?${query}`);

    it('answers a page of admin views with page, page_size, total and next_cursor', async () => {
      const response = await list(`search=${tag}N&pageSize=2`).expect(200);
      expect(response.body).toEqual({
        success: true,
        message: 'Users',
        data: {
          users: expect.any(Array),
          page: 1,
          page_size: 2,
          total: 5,
          total_exact: true,
          next_cursor: expect.any(String),
        },
      });
      expect(response.body.data.users[0]).toEqual({
        id: made[4],
        email: expect.stringContaining(tag),
        username: expect.stringContaining(tag),
        name: null,
        picture: null,
        role: 'user',
        email_verified: false,
        verified_at: null,
        disabled: false,
        disabled_at: null,
        two_factor: false,
        created_at: expect.any(String),
        updated_at: expect.any(String),
      });
      // 20 a page by default.
      expect((await list('').expect(200)).body.data.page_size).toBe(20);
    });

    it('pages in a stable order: newest first, ties by id, every user once', async () => {
      const pages = [];
      for (let page = 1; page <= 3; page++) {
        const response = await list(`search=${tag}&pageSize=2&page=${page}`).expect(200);
        pages.push(...(response.body.data.users as Array<{ id: string; created_at: string }>));
      }
      const whole = (await list(`search=${tag}&pageSize=100`).expect(200)).body.data
        .users as Array<{
        id: string;
        created_at: string;
      }>;
      expect(pages.map((u) => u.id)).toEqual(whole.map((u) => u.id));
      expect(new Set(pages.map((u) => u.id))).toEqual(new Set(made));
      const sorted = [...whole].sort(
        (a, b) => b.created_at.localeCompare(a.created_at) || b.id.localeCompare(a.id),
      );
      expect(whole.map((u) => u.id)).toEqual(sorted.map((u) => u.id));
      // Past the last page: empty, with the total.
      const beyond = await list(`search=${tag}&pageSize=2&page=4`).expect(200);
      expect(beyond.body.data).toMatchObject({ users: [], page: 4, total: 5 });
    });

    it('searches the beginning of an email or a username, `%` and `_` literally', async () => {
      const lit = `lit${Date.now().toString(36)}`;
      const percent = { ...uniqueUser('p'), email: `${lit}%1@example.com` };
      const plainEmail = { ...uniqueUser('p'), email: `${lit}x1@example.com` };
      const underscore = { ...uniqueUser('u'), username: `${lit}a_b` };
      const other = { ...uniqueUser('u'), username: `${lit}axb` };
      for (const user of [percent, plainEmail, underscore, other]) await registerUser(t, user);
      const found = async (search: string) =>
        (
          (await list(`search=${encodeURIComponent(search)}`).expect(200)).body.data
            .users as Array<{
            email: string;
            username: string;
          }>
        ).map((u) => u.email + ' ' + u.username);

      expect(await found(`${lit}%`)).toEqual([`${percent.email} ${percent.username}`]);
      expect(await found(`${lit}a_b`)).toEqual([`${underscore.email} ${underscore.username}`]);
      // Case-insensitive, by email and by username.
      expect(await found(`${lit.toUpperCase()}X1@`)).toEqual([
        `${plainEmail.email} ${plainEmail.username}`,
      ]);
      expect(await found(`${lit}AXB`)).toHaveLength(1);
      // The beginning only: a part from the middle finds nothing.
      expect(await found('%1@')).toEqual([]);
      expect(await found(`${lit}%%`)).toEqual([]);
    });

    it('refuses bad paging with 400 VALIDATION_ERROR naming the parameter', async () => {
      for (const [query, field] of [
        ['pageSize=0', 'pageSize'],
        ['pageSize=101', 'pageSize'],
        ['pageSize=abc', 'pageSize'],
        ['pageSize=2.5', 'pageSize'],
        ['page=0', 'page'],
        ['page=-1', 'page'],
        ['page=1e3', 'page'],
        ['search=a&search=b', 'search'],
        [`search=${'x'.repeat(255)}`, 'search'],
      ]) {
        const response = await list(query);
        expectError(response, 400, 'VALIDATION_ERROR');
        expect(response.body.details).toEqual([{ field, message: expect.any(String) }]);
        expect(response.body.message).toContain(field);
      }
    });
  });

  describe('one user', () => {
    it('reads a user, and answers an unknown id 404 USER_NOT_FOUND', async () => {
      const response = await as(admin).get(`${ADMIN}/${plain.user.id}`).expect(200);
      expect(response.body.data.user).toMatchObject({
        id: plain.user.id,
        email: plain.credentials.email,
        role: 'user',
        disabled: false,
      });
      expect(response.body.data.user).not.toHaveProperty('password_hash');
      const missing = await as(admin).get(`${ADMIN}/user_000000000000000000`);
      expectError(missing, 404, 'USER_NOT_FOUND');
      expect(missing.body.message).toBe('No user has this id');
      for (const send of [
        () => as(admin).patch(`${ADMIN}/user_0/role`, { role: 'admin' }),
        () => as(admin).post(`${ADMIN}/user_0/disable`),
        () => as(admin).post(`${ADMIN}/user_0/enable`),
        () => as(admin).post(`${ADMIN}/user_0/sessions/end`),
        () => as(admin).post(`${ADMIN}/user_0/password-reset`),
        () => as(admin).delete(`${ADMIN}/user_0`),
      ]) {
        expectError(await send(), 404, 'USER_NOT_FOUND');
      }
    });

    it('changes a role, applied at once to the live token, on record with the admin', async () => {
      const target = await registerAndLogin(t);
      expectError(await as(target).get(ADMIN), 403, 'FORBIDDEN');
      const promoted = await as(admin)
        .patch(`${ADMIN}/${target.user.id}/role`, { role: 'admin' })
        .expect(200);
      expect(promoted.body).toMatchObject({
        message: 'Role updated',
        data: { user: { id: target.user.id, role: 'admin' } },
      });
      await as(target).get(ADMIN).expect(200);
      await as(admin).patch(`${ADMIN}/${target.user.id}/role`, { role: 'user' }).expect(200);
      expectError(await as(target).get(ADMIN), 403, 'FORBIDDEN');

      const changes = (await events(target.user.id)).filter((e) => e.type === 'role_changed');
      expect(changes).toHaveLength(2);
      expect(changes.every((e) => e.actorId === admin.user.id)).toBe(true);
      // No change, no event.
      await as(admin).patch(`${ADMIN}/${target.user.id}/role`, { role: 'user' }).expect(200);
      expect((await events(target.user.id)).filter((e) => e.type === 'role_changed')).toHaveLength(
        2,
      );
    });

    it('refuses an unknown role or a malformed body with 400', async () => {
      for (const body of [{ role: 'owner' }, {}, { role: 'admin', extra: 1 }]) {
        const response = await as(admin).patch(`${ADMIN}/${plain.user.id}/role`, body);
        expectError(response, 400, 'VALIDATION_ERROR');
      }
      expectError(
        await as(admin)
          .patch(`${ADMIN}/${plain.user.id}/role`)
          .set('Content-Type', 'text/plain')
          .send('admin'),
        415,
        'UNSUPPORTED_MEDIA_TYPE',
      );
    });

    it('does not let an administrator disable, demote or delete their own account', async () => {
      const self = `${ADMIN}/${admin.user.id}`;
      for (const response of [
        await as(admin).post(`${self}/disable`),
        await as(admin).patch(`${self}/role`, { role: 'user' }),
        await as(admin).delete(self),
      ]) {
        expectError(response, 409, 'CANNOT_MODIFY_SELF');
      }
      const stored = await as(admin).get(self).expect(200);
      expect(stored.body.data.user).toMatchObject({ role: 'admin', disabled: false });
      // Setting their own role to what it is changes nothing and is allowed.
      await as(admin).patch(`${self}/role`, { role: 'admin' }).expect(200);
    });
  });

  describe('disable and enable', () => {
    it('ends the sessions at once and refuses login (only with the right password), refresh and tokens', async () => {
      const target = await registerAndLogin(t);
      await verify(target.access).expect(200);

      const response = await as(admin).post(`${ADMIN}/${target.user.id}/disable`).expect(200);
      expect(response.body).toMatchObject({
        message: 'Account disabled',
        data: { user: { id: target.user.id, disabled: true, disabled_at: expect.any(String) } },
      });

      expectError(await verify(target.access), 401, 'INVALID_TOKEN');
      expectError(await as(target).get('/api/v1/users/me'), 401, 'INVALID_TOKEN');
      expectError(await refreshWith(t, target.refresh), 401, 'INVALID_TOKEN');
      expectError(await loginAs(target.credentials.email), 403, 'ACCOUNT_DISABLED');
      // A guesser learns nothing: the wrong password gets the ordinary answer.
      expectError(await loginAs(target.credentials.email, 'wrong-password'), 401, 'LOGIN_FAILED');
      // Disabling again changes nothing, and keeps the first time.
      const again = await as(admin).post(`${ADMIN}/${target.user.id}/disable`).expect(200);
      expect(again.body.data.user.disabled_at).toBe(response.body.data.user.disabled_at);

      const enabled = await as(admin).post(`${ADMIN}/${target.user.id}/enable`).expect(200);
      expect(enabled.body.data.user).toMatchObject({ disabled: false, disabled_at: null });
      // The old sessions stay ended; a new login works.
      expectError(await verify(target.access), 401, 'INVALID_TOKEN');
      const back = await login(t, target.credentials);
      await verify(back.access).expect(200);
      await as(admin).post(`${ADMIN}/${target.user.id}/enable`).expect(200);

      const trail = await events(target.user.id);
      expect(trail.map((e) => e.type)).toEqual([
        'registered',
        'login_succeeded',
        'account_disabled',
        'login_failed',
        'login_failed',
        'account_enabled',
        'login_succeeded',
      ]);
      const byAdmin = trail.filter((e) => e.type.startsWith('account_'));
      expect(byAdmin.every((e) => e.actorId === admin.user.id)).toBe(true);
      expect(trail.filter((e) => !e.type.startsWith('account_')).every((e) => !e.actorId)).toBe(
        true,
      );
    });

    it('disables once under parallel requests: every answer 200, one event', async () => {
      const target = await registerAndLogin(t);
      const answers = await Promise.all(
        Array.from({ length: 10 }, () => as(admin).post(`${ADMIN}/${target.user.id}/disable`)),
      );
      expect(answers.map((r) => r.status)).toEqual(Array(10).fill(200));
      const times = answers.map(
        (r) => (r.body as { data: { user: { disabled_at: string } } }).data,
      );
      expect(new Set(times.map((data) => data.user.disabled_at)).size).toBe(1);
      const disabled = (await events(target.user.id)).filter((e) => e.type === 'account_disabled');
      expect(disabled).toHaveLength(1);
      expectError(await verify(target.access), 401, 'INVALID_TOKEN');
    });

    it('the email flows work for a disabled account but do not enable it', async () => {
      const target = await registerAndLogin(t);
      await as(admin).post(`${ADMIN}/${target.user.id}/disable`).expect(200);
      await t
        .http()
        .post('/api/v1/auth/forgot-password')
        .send({ email: target.credentials.email })
        .expect(200);
      const mail = (await t.outbox()).filter((m) => m.to === target.credentials.email).at(-1)!;
      await t
        .http()
        .post('/api/v1/auth/reset-password')
        .send({ token: mail.token, newPassword: 'another-pass-9' })
        .expect(200);
      expectError(
        await loginAs(target.credentials.email, 'another-pass-9'),
        403,
        'ACCOUNT_DISABLED',
      );
      // Verifying the email works too, and does not enable the account either.
      const verification = (await t.outbox()).find((m) => m.to === target.credentials.email)!;
      await t
        .http()
        .post('/api/v1/auth/verify-email')
        .send({ token: verification.token })
        .expect(200);
      expectError(
        await loginAs(target.credentials.email, 'another-pass-9'),
        403,
        'ACCOUNT_DISABLED',
      );
      await as(admin).post(`${ADMIN}/${target.user.id}/enable`).expect(200);
      await loginAs(target.credentials.email, 'another-pass-9').expect(200);
    });
  });

  it('ends every session of a user, who can log in again', async () => {
    const target = await registerAndLogin(t);
    const second = await login(t, target.credentials);
    const response = await as(admin).post(`${ADMIN}/${target.user.id}/sessions/end`).expect(200);
    expect(response.body).toEqual({ success: true, message: 'Sessions ended' });
    for (const session of [target, second]) {
      expectError(await verify(session.access), 401, 'INVALID_TOKEN');
      expectError(await refreshWith(t, session.refresh), 401, 'INVALID_TOKEN');
    }
    await login(t, target.credentials);
    const ended = (await events(target.user.id)).find((e) => e.type === 'sessions_ended');
    expect(ended?.actorId).toBe(admin.user.id);
  });

  it('mails a password-reset link to the stored address, which works', async () => {
    const target = await registerAndLogin(t);
    const response = await as(admin)
      .post(`${ADMIN}/${target.user.id}/password-reset`, {
        applicationUrl: `${APP_ORIGIN}/reset`,
      })
      .expect(200);
    expect(response.body).toEqual({ success: true, message: 'Password reset email sent' });
    const mail = (await t.outbox()).filter((m) => m.to === target.credentials.email).at(-1)!;
    expect(mail.link.startsWith(`${APP_ORIGIN}/reset?token=`)).toBe(true);
    await t
      .http()
      .post('/api/v1/auth/reset-password')
      .send({ token: mail.token, newPassword: 'reset-by-admin-1' })
      .expect(200);
    await loginAs(target.credentials.email, 'reset-by-admin-1').expect(200);
    const requested = (await events(target.user.id)).find(
      (e) => e.type === 'password_reset_requested',
    );
    expect(requested?.actorId).toBe(admin.user.id);

    // Without a body: the service's own page. A foreign origin: refused, nothing sent.
    await as(admin).post(`${ADMIN}/${target.user.id}/password-reset`).expect(200);
    const before = (await t.outbox()).length;
    const foreign = await as(admin).post(`${ADMIN}/${target.user.id}/password-reset`, {
      applicationUrl: 'https://evil.example.net/reset',
    });
    expectError(foreign, 400, 'VALIDATION_ERROR');
    expect((await t.outbox()).length).toBe(before);
  });

  describe('deletion', () => {
    const rows = async (userId: string) => ({
      sessions: await t.dataSource.getRepository(RefreshSession).countBy({ userId }),
      tokens: await t.dataSource.getRepository(VerificationToken).countBy({ userId }),
    });

    it('by an administrator: tokens refused, rows gone, email free, the trail kept', async () => {
      const target = await registerAndLogin(t);
      await t
        .http()
        .post('/api/v1/auth/forgot-password')
        .send({ email: target.credentials.email })
        .expect(200);
      expect(await rows(target.user.id)).toEqual({ sessions: 1, tokens: 2 });

      const response = await as(admin).delete(`${ADMIN}/${target.user.id}`).expect(200);
      expect(response.body).toEqual({ success: true, message: 'User deleted' });

      expectError(await verify(target.access), 401, 'INVALID_TOKEN');
      expectError(await refreshWith(t, target.refresh), 401, 'INVALID_TOKEN');
      expectError(await loginAs(target.credentials.email), 401, 'LOGIN_FAILED');
      expectError(await as(admin).get(`${ADMIN}/${target.user.id}`), 404, 'USER_NOT_FOUND');
      expectError(await as(admin).delete(`${ADMIN}/${target.user.id}`), 404, 'USER_NOT_FOUND');
      expect(await rows(target.user.id)).toEqual({ sessions: 0, tokens: 0 });

      const trail = await events(target.user.id);
      expect(trail.map((e) => e.type)).toEqual([
        'registered',
        'login_succeeded',
        'password_reset_requested',
        'account_deleted',
      ]);
      expect(trail.at(-1)!.actorId).toBe(admin.user.id);

      // Email and username free again, case-insensitively.
      await t
        .http()
        .post('/api/v1/auth/register')
        .send({ ...target.credentials, email: target.credentials.email.toUpperCase() })
        .expect(201);
    });

    it('deletes once under parallel requests: one 200, the rest 404, one event', async () => {
      const target = await registerAndLogin(t);
      const answers = await Promise.all(
        Array.from({ length: 10 }, () => as(admin).delete(`${ADMIN}/${target.user.id}`)),
      );
      const statuses = answers.map((r) => r.status).sort();
      expect(statuses).toEqual([200, ...Array(9).fill(404)]);
      const deleted = (await events(target.user.id)).filter((e) => e.type === 'account_deleted');
      expect(deleted).toHaveLength(1);
    });

    it('by the user: DELETE /users/me with the current password', async () => {
      const target = await registerAndLogin(t);
      const me = '/api/v1/users/me';

      const wrong = await as(target).delete(me, { password: 'not-my-password' });
      expectError(wrong, 403, 'INVALID_PASSWORD');
      expect(wrong.body.message).toBe('The current password is wrong');
      expectError(await as(target).delete(me, {}), 400, 'VALIDATION_ERROR');
      expectError(await as(target).delete(me, { password: 1 }), 400, 'VALIDATION_ERROR');
      expectError(await as(undefined).delete(me, { password: PASSWORD }), 401, 'INVALID_TOKEN');
      await verify(target.access).expect(200);

      const response = await t
        .http()
        .delete(me)
        .set('Origin', APP_ORIGIN)
        .set('Cookie', `access_token=${target.access}`)
        .send({ password: PASSWORD })
        .expect(200);
      expect(response.body).toEqual({ success: true, message: 'Account deleted' });
      const cookies = cookiesOf(response);
      expect(cookies.access_token.value).toBe('');
      expect(cookies.refresh_token.value).toBe('');

      expectError(await verify(target.access), 401, 'INVALID_TOKEN');
      expectError(await refreshWith(t, target.refresh), 401, 'INVALID_TOKEN');
      expectError(await loginAs(target.credentials.email), 401, 'LOGIN_FAILED');
      expect(await rows(target.user.id)).toEqual({ sessions: 0, tokens: 0 });
      const deleted = (await events(target.user.id)).at(-1)!;
      expect(deleted).toMatchObject({ type: 'account_deleted', actorId: null });
      await registerAndLogin(t, target.credentials);
    });

    it('DELETE /users/me refuses a foreign origin with the cookie', async () => {
      const target = await registerAndLogin(t);
      const response = await t
        .http()
        .delete('/api/v1/users/me')
        .set('Origin', 'https://evil.example.net')
        .set('Cookie', `access_token=${target.access}`)
        .send({ password: PASSWORD });
      expectError(response, 403, 'FORBIDDEN_ORIGIN');
      await verify(target.access).expect(200);
    });
  });
});

/** After the suite above has closed its app: two live apps in one process share passport. */
describe('DELETE /users/me and the strict rate limit', () => {
  let t: TestApp;
  beforeAll(async () => {
    // Register and login spend both: the strict budget is shared by those routes.
    t = await startTestApp({ THROTTLE_AUTH_LIMIT: '2' });
  });
  afterAll(() => t.close());

  it('is not under the login budget: wrong guesses are slowed per account instead', async () => {
    const session = await registerAndLogin(t);
    const attempt = (password: string) =>
      t
        .http()
        .delete('/api/v1/users/me')
        .set('Authorization', `Bearer ${session.access}`)
        .send({ password });
    expectError(await attempt('guess-1234'), 403, 'INVALID_PASSWORD');
    expectError(await attempt('guess-5678'), 403, 'INVALID_PASSWORD');
    await attempt(PASSWORD).expect(200);
  });
});
