import * as jwt from 'jsonwebtoken';
import {
  cookiesOf,
  login,
  PASSWORD,
  refreshWith,
  registerUser,
  uniqueUser,
} from './support/auth-helpers';
import { RecordedEvents, RecordedEventsModule } from './support/recorded-events';
import { TestApp, startTestApp } from './support/test-app';

const AGENT = 'EventsTest/1.0 (the domain events suite)';

/**
 * Issue 34: the changes are announced as domain events, which a team's module subscribes to
 * (here a test-only one beside AppModule), with the payloads decisions.md fixes.
 */
describe('domain events, as a subscriber of its own module sees them', () => {
  let t: TestApp;
  let recorded: RecordedEvents;

  beforeAll(async () => {
    t = await startTestApp({ REFRESH_REUSE_GRACE: '0' }, { imports: [RecordedEventsModule] });
    recorded = t.app.get(RecordedEvents);
  });
  afterAll(() => t.close());

  const claimsOf = (access: string) => jwt.decode(access) as { sid: string; amr: string[] };
  const bearer = (access: string) => ({ Authorization: `Bearer ${access}` });

  it('announces a registration as user.created, inside its transaction and after the commit', async () => {
    const { user, credentials } = await registerUser(t);
    const events = recorded.seen.filter(
      ({ event }) => event.type === 'user.created' && event.data.user.id === user.id,
    );
    expect(events.map(({ phase }) => phase)).toEqual(['transaction', 'committed']);
    expect(events[1].event).toMatchObject({
      type: 'user.created',
      data: { user: { id: user.id, email: credentials.email }, method: 'password' },
    });
  });

  it('announces a login as session.created with the sid and amr of the tokens issued', async () => {
    const { user, credentials } = await registerUser(t);
    const response = await t
      .http()
      .post('/api/v1/auth/login')
      .set('User-Agent', AGENT)
      .send({ email: credentials.email, password: credentials.password })
      .expect(200);
    const claims = claimsOf(cookiesOf(response).access_token.value);
    expect(recorded.of(user.id).map((event) => event.type)).toEqual([
      'user.created',
      'session.created',
    ]);
    expect(recorded.of(user.id)[1]).toMatchObject({
      data: { user: { id: user.id }, session: { id: claims.sid, amr: claims.amr } },
      origin: { client: { userAgent: AGENT } },
    });
    expect(claims.amr).toEqual(['pwd']);
  });

  it('announces a failed login as a security signal, never as a domain event', async () => {
    const { user, credentials } = await registerUser(t);
    await t
      .http()
      .post('/api/v1/auth/login')
      .send({ email: credentials.email, password: 'not the password' })
      .expect(401);
    expect(recorded.of(user.id).map((event) => event.type)).toEqual(['user.created']);
    expect(recorded.signals.filter((signal) => signal.userId === user.id)).toMatchObject([
      { type: 'login.failed', userId: user.id },
    ]);
  });

  it('announces a reused refresh token as session.revoked (reuse_detected) of its session', async () => {
    const { user, credentials } = await registerUser(t);
    const session = await login(t, credentials);
    await refreshWith(t, session.refresh).expect(200);
    await new Promise((resolve) => setTimeout(resolve, 20));
    await refreshWith(t, session.refresh).expect(401);
    expect(recorded.of(user.id).at(-1)).toMatchObject({
      type: 'session.revoked',
      data: {
        userId: user.id,
        sessions: [{ id: claimsOf(session.access).sid }],
        reason: 'reuse_detected',
      },
    });
  });

  it('announces a password change: the other sessions revoked, then the change with the new session', async () => {
    const { user, credentials } = await registerUser(t);
    const first = await login(t, credentials);
    const second = await login(t, credentials);
    const changed = await t
      .http()
      .post('/api/v1/users/me/password')
      .set(bearer(second.access))
      .set('X-Token-Delivery', 'body')
      .send({ currentPassword: PASSWORD, newPassword: 'a new horse battery' })
      .expect(200);
    const events = recorded.of(user.id).slice(-2);
    expect(events[0]).toMatchObject({
      type: 'session.revoked',
      data: { reason: 'password_changed' },
    });
    const revoked = events[0].type === 'session.revoked' ? events[0].data.sessions : [];
    expect(revoked.map((session) => session.id).sort()).toEqual(
      [claimsOf(first.access).sid, claimsOf(second.access).sid].sort(),
    );
    const access = (changed.body.access_token ??
      changed.body.data?.access_token ??
      cookiesOf(changed).access_token?.value) as string;
    expect(events[1]).toMatchObject({
      type: 'user.password_changed',
      data: { user: { id: user.id }, how: 'change', session: { id: claimsOf(access).sid } },
    });
  });

  it('announces a logout as session.revoked (logout) of the session the token named', async () => {
    const { user } = await registerUser(t, uniqueUser('events'));
    const session = await login(t, { email: user.email, password: PASSWORD });
    await t
      .http()
      .post('/api/v1/auth/logout')
      .set(bearer(session.access))
      .send({ scope: 'current' })
      .expect(200);
    expect(recorded.of(user.id).at(-1)).toMatchObject({
      type: 'session.revoked',
      data: { userId: user.id, sessions: [{ id: claimsOf(session.access).sid }], reason: 'logout' },
    });
    await t
      .http()
      .post('/api/v1/auth/logout')
      .set(bearer((await login(t, { email: user.email, password: PASSWORD })).access))
      .expect(200);
    expect(recorded.of(user.id).at(-1)).toMatchObject({
      type: 'session.revoked',
      data: { reason: 'logout', everySession: true },
    });
  });
});
