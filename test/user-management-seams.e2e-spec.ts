import { AccountRemoval } from '../src/account-removal/account-removal.service';
import { AuditEvent } from '../src/audit/audit-event.entity';
import { EmailLinksService } from '../src/email-links/email-links.service';
import { User } from '../src/users/user.entity';
import { UserDirectory } from '../src/users/user-directory.service';
import {
  LoggedIn,
  PASSWORD,
  expectError,
  registerAndLogin,
  uniqueUser,
} from './support/auth-helpers';
import { SmtpSink } from './support/mailbox';
import { TestApp, startTestApp } from './support/test-app';

const METRICS = 'seams-metrics-token-0123456789-abcdef';

/**
 * Where the parts of user management meet: account changes, password resets, disabled accounts,
 * deletion and the audit trail's sessions. Each case is a hole one part left for another.
 */
describe('user management: where the parts meet', () => {
  let t: TestApp;
  let sink: SmtpSink;
  let admin: LoggedIn;

  beforeAll(async () => {
    sink = await new SmtpSink().start();
    t = await startTestApp({
      SMTP_URL: sink.url,
      LOGIN_FAILURES_FREE: '3',
      METRICS_TOKEN: METRICS,
    });
    admin = await registerAndLogin(t, uniqueUser('seamadmin'));
    await t.app.get(UserDirectory).setRole(admin.user.id, 'admin');
  });
  afterAll(async () => {
    await t?.close();
    await sink?.stop();
  });

  const bearer = (access: string) => ({ Authorization: `Bearer ${access}` });
  const json = (path: string, body: object) => t.http().post(path).send(body);
  const asAdmin = (path: string) => t.http().post(path).set(bearer(admin.access)).send({});
  /** Asks for an email change and returns the token mailed to the new address. */
  async function pendingEmailChange(user: LoggedIn, newEmail: string): Promise<string> {
    await t
      .http()
      .post('/api/v1/users/me/email')
      .set(bearer(user.access))
      .send({ password: PASSWORD, newEmail })
      .expect(200);
    return sink.to(newEmail).at(-1)!.token;
  }
  async function resetToken(email: string): Promise<string> {
    await json('/api/v1/auth/forgot-password', { email }).expect(200);
    return sink.to(email.toLowerCase()).at(-1)!.token;
  }

  it('a password reset retires an email change asked for with the old password', async () => {
    const owner = await registerAndLogin(t);
    // Someone who knew the password asks to move the account to their own address…
    const attacker = uniqueUser('taker').email;
    const change = await pendingEmailChange(owner, attacker);
    // …and the owner takes the account back with a reset.
    const reset = await resetToken(owner.credentials.email);
    await json('/api/v1/auth/reset-password', {
      token: reset,
      newPassword: 'owner-again-7',
    }).expect(200);

    const confirm = await json('/api/v1/users/me/email/confirm', { token: change });

    expectError(confirm, 401, 'INVALID_TOKEN');
    const login = await json('/api/v1/auth/login', {
      email: owner.credentials.email,
      password: 'owner-again-7',
    });
    expect(login.status).toBe(200);
    expect(login.body.data.user.email).toBe(owner.credentials.email);
  });

  it('a disabled account cannot be moved to a new address; its recovery reset link still works', async () => {
    const user = await registerAndLogin(t);
    const change = await pendingEmailChange(user, uniqueUser('moved').email);
    await asAdmin(`/api/v1/admin/users/${user.user.id}/disable`).expect(200);
    await asAdmin(`/api/v1/admin/users/${user.user.id}/password-reset`).expect(200);
    const reset = sink.to(user.credentials.email.toLowerCase()).at(-1)!.token;

    const confirm = await json('/api/v1/users/me/email/confirm', { token: change });

    expect(confirm.status).toBeGreaterThanOrEqual(400);
    await json('/api/v1/auth/reset-password', {
      token: reset,
      newPassword: 'recovered-pass-5',
    }).expect(200);
    await asAdmin(`/api/v1/admin/users/${user.user.id}/enable`).expect(200);
    const login = await json('/api/v1/auth/login', {
      email: user.credentials.email,
      password: 'recovered-pass-5',
    });
    expect(login.status).toBe(200);
    expect(login.body.data.user.email).toBe(user.credentials.email);
    // Enabled again, the old link still does nothing.
    expectError(
      await json('/api/v1/users/me/email/confirm', { token: change }),
      401,
      'INVALID_TOKEN',
    );
  });

  it('wrong passwords on DELETE /users/me count toward the account’s login slow-down', async () => {
    const user = await registerAndLogin(t);
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      const response = await t
        .http()
        .delete('/api/v1/users/me')
        .set(bearer(user.access))
        .send({ password: 'not-the-password' });
      statuses.push(response.status);
    }

    expect(statuses.slice(0, 3)).toEqual([403, 403, 403]);
    expect(statuses.slice(3)).toEqual([429, 429]);
    const login = await json('/api/v1/auth/login', {
      email: user.credentials.email,
      password: PASSWORD,
    });
    expectError(login, 429, 'RATE_LIMITED');
  });

  it('a disabled account’s login with the right password is the documented 403 ACCOUNT_DISABLED', async () => {
    const user = await registerAndLogin(t);
    await asAdmin(`/api/v1/admin/users/${user.user.id}/disable`).expect(200);
    const { email, password } = user.credentials;

    expectError(await json('/api/v1/auth/login', { email, password }), 403, 'ACCOUNT_DISABLED');
  });

  it('names the session a login or a password change starts, as session_ended names the ones it ends', async () => {
    const user = await registerAndLogin(t);
    const changed = await t
      .http()
      .post('/api/v1/users/me/password')
      .set(bearer(user.access))
      .set('X-Token-Delivery', 'body')
      .send({ currentPassword: PASSWORD, newPassword: 'a-new-secret-8' })
      .expect(200);
    const sid = (access: string) =>
      (JSON.parse(Buffer.from(access.split('.')[1], 'base64url').toString()) as { sid: string })
        .sid;

    const events = await t.dataSource
      .getRepository(AuditEvent)
      .find({ where: { userId: user.user.id }, order: { createdAt: 'ASC' } });

    const started = events.filter(
      (e) => e.type === 'login_succeeded' || e.type === 'password_changed',
    );
    expect(started.map((e) => [e.type, e.sessionId])).toEqual([
      ['login_succeeded', sid(user.access)],
      ['password_changed', sid(changed.body.access_token as string)],
    ]);
  });

  it('a reset mail for an account deleted a moment ago is "no such account", not a 500', async () => {
    const doomed = await registerAndLogin(t);
    // As the administrator's reset route holds it: read before the deletion commits.
    const stale = await t.dataSource.getRepository(User).findOneByOrFail({ id: doomed.user.id });
    const client = { ip: '127.0.0.1', userAgent: 'test', requestId: 'seams' };
    await t.app.get(AccountRemoval).remove(doomed.user.id, client, admin.user.id);

    const sending = t.app
      .get(EmailLinksService)
      .sendPasswordReset(stale, undefined, client, admin.user.id);

    await expect(sending).rejects.toMatchObject({ code: 'USER_NOT_FOUND' });
  });

  it('counts what administrators end in auth_revocations_total', async () => {
    const series = (reason: string) => `auth_revocations_total{reason="${reason}"}`;
    const read = async () => {
      const text = (
        await t.http().get('/metrics').set('Authorization', `Bearer ${METRICS}`).expect(200)
      ).text;
      const value = (reason: string) => {
        const line = text.split('\n').find((l) => l.startsWith(`${series(reason)} `));
        return line ? Number(line.slice(series(reason).length + 1)) : 0;
      };
      return {
        admin: value('admin'),
        disabled: value('account_disabled'),
        deleted: value('account_deleted'),
      };
    };
    const before = await read();
    const user = await registerAndLogin(t);

    await asAdmin(`/api/v1/admin/users/${user.user.id}/sessions/end`).expect(200);
    await asAdmin(`/api/v1/admin/users/${user.user.id}/disable`).expect(200);
    await t
      .http()
      .delete(`/api/v1/admin/users/${user.user.id}`)
      .set(bearer(admin.access))
      .expect(200);

    expect(await read()).toEqual({
      admin: before.admin + 1,
      disabled: before.disabled + 1,
      deleted: before.deleted + 1,
    });
  });
});
