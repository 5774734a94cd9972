import { AuditEvent } from '../src/audit/audit-event.entity';
import { AuditTrail } from '../src/audit/audit-trail.service';
import {
  cookiesOf,
  login,
  refreshWith,
  registerAndLogin,
  registerUser,
} from './support/auth-helpers';
import { TestApp, startTestApp } from './support/test-app';

const AGENT = 'AuditTest/1.0 (the audit suite)';

describe('the security audit trail', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ REFRESH_REUSE_GRACE: '0' });
  });
  afterAll(() => t.close());

  const trail = (userId: string) => t.app.get(AuditTrail).forUser(userId);
  const types = async (userId: string) => (await trail(userId)).map((event) => event.type);

  it('records an account’s life: registration, logins, verification, reset, logout', async () => {
    const { credentials, user } = await registerUser(t);
    await t
      .http()
      .post('/api/v1/auth/login')
      .set('User-Agent', AGENT)
      .send({ email: credentials.email, password: 'wrong-password' })
      .expect(401);
    const session = await login(t, credentials);
    const verification = (await t.outbox()).find((mail) => mail.to === credentials.email)!;
    await t
      .http()
      .post('/api/v1/auth/verify-email')
      .send({ token: verification.token })
      .expect(200);
    await t
      .http()
      .post('/api/v1/auth/forgot-password')
      .send({ email: credentials.email })
      .expect(200);
    const reset = (await t.outbox()).filter((mail) => mail.to === credentials.email).at(-1)!;
    await t
      .http()
      .post('/api/v1/auth/reset-password')
      .send({ token: reset.token, newPassword: 'a-new-password-1' })
      .expect(200);
    const again = await login(t, { email: credentials.email, password: 'a-new-password-1' });
    await t
      .http()
      .post('/api/v1/auth/logout')
      .set('Authorization', `Bearer ${again.access}`)
      .expect(200);

    expect(session.access).toBeTruthy();
    expect(await types(user.id)).toEqual([
      'registered',
      'login_failed',
      'login_succeeded',
      'email_verified',
      'password_reset_requested',
      'password_changed',
      'login_succeeded',
      'logout',
    ]);
    const failed = (await trail(user.id))[1];
    expect(failed).toMatchObject({ ip: expect.stringMatching(/127\.0\.0\.1$/), userAgent: AGENT });
    expect(failed.createdAt).toBeInstanceOf(Date);
    // Every event knows where its request came from.
    expect((await trail(user.id)).every((event) => /127\.0\.0\.1$/.test(event.ip ?? ''))).toBe(
      true,
    );
  });

  it('records a failed login for an unknown email without a user', async () => {
    const before = await t.dataSource.getRepository(AuditEvent).countBy({ type: 'login_failed' });
    await t
      .http()
      .post('/api/v1/auth/login')
      .send({ email: 'nobody-here@example.com', password: 'whatever-1' })
      .expect(401);
    const failures = await t.dataSource
      .getRepository(AuditEvent)
      .find({ where: { type: 'login_failed' }, order: { createdAt: 'ASC' } });
    expect(failures).toHaveLength(before + 1);
    expect(failures.at(-1)!.userId).toBeNull();
  });

  it('records refresh-token reuse', async () => {
    const session = await registerAndLogin(t);
    cookiesOf(await refreshWith(t, session.refresh).expect(200));
    await new Promise((resolve) => setTimeout(resolve, 20));
    await refreshWith(t, session.refresh).expect(401);
    const reuse = (await trail(session.user.id)).find(
      (event) => event.type === 'refresh_reuse_detected',
    );
    expect(reuse?.ip).toMatch(/127\.0\.0\.1$/);
  });

  it('writes an event with its change or not at all: a refused registration leaves none', async () => {
    const { credentials } = await registerUser(t);
    const count = () => t.dataSource.getRepository(AuditEvent).countBy({ type: 'registered' });
    const before = await count();
    await t.http().post('/api/v1/auth/register').send(credentials).expect(409);
    expect(await count()).toBe(before);
  });
});
