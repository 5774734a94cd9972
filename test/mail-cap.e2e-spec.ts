import { Response } from 'supertest';
import { VerificationToken } from '../src/tokens/verification-token.entity';
import { UserDirectory } from '../src/users/user-directory.service';
import {
  LoggedIn,
  PASSWORD,
  expectError,
  login,
  registerAndLogin,
  registerUser,
  uniqueUser,
} from './support/auth-helpers';
import { SmtpSink } from './support/mailbox';
import { APP_ORIGIN, TestApp, startTestApp } from './support/test-app';

const METRICS_TOKEN = 'metrics-token-0123456789-abcdefghijkl';

/**
 * Issue 22, item 6: at most MAIL_RECIPIENT_LIMIT mails of one kind per address in any
 * MAIL_RECIPIENT_WINDOW seconds, whoever asks for them; past it 429 with Retry-After and no mail.
 * Requests are sent as the example app's pages send them (its Origin). Across instances:
 * mail-cap-instances.e2e-spec.ts.
 */
describe('the per-recipient cap on mail', () => {
  let sink: SmtpSink;
  let t: TestApp;

  beforeAll(async () => {
    sink = await new SmtpSink().start();
    t = await startTestApp({
      SMTP_URL: sink.url,
      MAIL_RECIPIENT_LIMIT: '3',
      MAIL_RECIPIENT_WINDOW: '900',
      METRICS_TOKEN,
    });
  });
  afterAll(async () => {
    await t?.close();
    await sink?.stop();
  });

  const post = (path: string, body: object, access?: string) => {
    const request = t.http().post(`/api/v1${path}`).set('Origin', APP_ORIGIN);
    if (access) request.set('Authorization', `Bearer ${access}`);
    return request.send(body);
  };
  const mails = (to: string, subject: RegExp) =>
    sink.to(to).filter((mail) => subject.test(mail.subject));
  const RESET = /^Reset your/;
  const VERIFY = /^Verify your email/;
  const CHANGE = /^Confirm your new email/;
  const expectCapped = (response: Response, window = 900) => {
    expectError(response, 429, 'RATE_LIMITED');
    expect(response.body.message).toBe('Too many emails to this address, try again later');
    const retryAfter = Number(response.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(window);
  };
  const tokenRows = (userId: string, purpose: VerificationToken['purpose']) =>
    t.dataSource.getRepository(VerificationToken).countBy({ userId, purpose });
  const scrape = async (series: string) => {
    const text = (
      await t.http().get('/metrics').set('Authorization', `Bearer ${METRICS_TOKEN}`).expect(200)
    ).text;
    const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
    return line ? Number(line.slice(series.length + 1)) : 0;
  };

  it('mails a reset link three times, then answers 429 with Retry-After, mails nothing and writes nothing', async () => {
    const { credentials, user } = await registerUser(t, uniqueUser('Capped'));
    const capped = 'auth_emails_total{kind="password_reset",outcome="capped"}';
    const cappedBefore = await scrape(capped);
    // One address however it is spelt, through every route that sends this mail.
    await post('/auth/forgot-password', { email: credentials.email }).expect(200);
    await post('/auth/reset-password', { email: ` ${credentials.email.toUpperCase()} ` }).expect(
      200,
    );
    await post('/email/forgot-password', { email: credentials.email }).expect(200);
    expect(mails(credentials.email, RESET)).toHaveLength(3);
    const rows = await tokenRows(user.id, 'password_reset');

    expectCapped(await post('/auth/forgot-password', { email: credentials.email }));
    expectCapped(await post('/email/reset', { email: credentials.email.toUpperCase() }));

    expect(mails(credentials.email, RESET)).toHaveLength(3);
    expect(await tokenRows(user.id, 'password_reset')).toBe(rows);
    expect(await scrape(capped)).toBe(cappedBefore + 2);
    // The refused requests retired nothing: the last link mailed still sets the password.
    await post('/auth/reset-password', {
      token: mails(credentials.email, RESET)[2].token,
      newPassword: 'set-after-the-cap',
    }).expect(200);
    await login(t, { email: credentials.email, password: 'set-after-the-cap' });
  });

  it('still answers an unknown address 404, never 429: nothing is mailed, nothing counted', async () => {
    const email = uniqueUser('Nobody').email;
    for (let i = 0; i < 5; i++) {
      expectError(await post('/auth/forgot-password', { email }), 404, 'USER_NOT_FOUND');
    }
  });

  it('counts each kind apart; the registration’s verification mail counts with the resends', async () => {
    const { credentials } = await registerUser(t, uniqueUser('Kinds'));
    await post('/auth/resend-verification-email', { email: credentials.email }).expect(200);
    await post('/email/resend-verification-email', { email: credentials.email }).expect(200);
    expectCapped(await post('/auth/resend-verification-email', { email: credentials.email }));
    expect(mails(credentials.email, VERIFY)).toHaveLength(3);

    // A reset mail is another kind: the address still gets those.
    await post('/auth/forgot-password', { email: credentials.email }).expect(200);
    expect(mails(credentials.email, RESET)).toHaveLength(1);
    // The first verification link still works.
    await post('/auth/verify-email', { token: mails(credentials.email, VERIFY)[0].token }).expect(
      200,
    );
  });

  it('never refuses a registration: an address out of verification mails gets its account, unmailed', async () => {
    const credentials = uniqueUser('Again');
    const first = await registerAndLogin(t, credentials);
    await post('/auth/resend-verification-email', { email: credentials.email }).expect(200);
    await post('/auth/resend-verification-email', { email: credentials.email }).expect(200);
    await t
      .http()
      .delete('/api/v1/users/me')
      .set('Origin', APP_ORIGIN)
      .set('Authorization', `Bearer ${first.access}`)
      .send({ password: PASSWORD })
      .expect(200);

    const again = await post('/auth/register', credentials);
    expect(again.status).toBe(201);
    expect(again.body).toMatchObject({
      success: true,
      message:
        'Registration successful, but this address has had too many emails lately: request ' +
        'the verification email again later.',
      data: { user: { email: credentials.email, email_verified: false } },
    });
    expect(mails(credentials.email, VERIFY)).toHaveLength(3);
    expect(await tokenRows(again.body.data.user.id, 'email_verification')).toBe(0);
    await login(t, credentials);
  });

  describe('mail an administrator or a signed-in user asks for', () => {
    let admin: LoggedIn;
    beforeAll(async () => {
      admin = await registerAndLogin(t, uniqueUser('CapAdmin'));
      await t.app.get(UserDirectory).setRole(admin.user.id, 'admin');
    });

    it('counts an administrator’s reset mails with the ones the user asks for', async () => {
      const { credentials, user } = await registerUser(t, uniqueUser('AdminReset'));
      const adminReset = () => post(`/admin/users/${user.id}/password-reset`, {}, admin.access);
      await post('/auth/forgot-password', { email: credentials.email }).expect(200);
      await adminReset().expect(200);
      await post('/auth/forgot-password', { email: credentials.email }).expect(200);
      expectCapped(await adminReset());
      expectCapped(await post('/auth/forgot-password', { email: credentials.email }));
      expect(mails(credentials.email, RESET)).toHaveLength(3);
    });

    it('caps change-of-email links by the address they go to, whoever asks, and keeps the last link', async () => {
      const owner = await registerAndLogin(t, uniqueUser('Mover'));
      const other = await registerAndLogin(t, uniqueUser('OtherMover'));
      const target = uniqueUser('Destination').email;
      const change = (session: LoggedIn) =>
        post('/users/me/email', { password: PASSWORD, newEmail: target }, session.access);
      await change(owner).expect(200);
      await change(other).expect(200);
      await change(owner).expect(200);
      expectCapped(await change(owner));
      expectCapped(await change(other));
      expect(mails(target, CHANGE)).toHaveLength(3);

      // The refused request retired nothing: the owner's last link moves the account.
      await post('/users/me/email/confirm', { token: mails(target, CHANGE)[2].token }).expect(200);
      await login(t, { email: target, password: PASSWORD });
    });
  });
});

describe('the per-recipient cap as its window slides', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ MAIL_RECIPIENT_LIMIT: '2', MAIL_RECIPIENT_WINDOW: '2' });
  });
  afterAll(() => t?.close());

  it('frees a slot when Retry-After says, and does not count refused requests', async () => {
    const { credentials } = await registerUser(t, uniqueUser('Slide'));
    const resend = () =>
      t
        .http()
        .post('/api/v1/auth/resend-verification-email')
        .set('Origin', APP_ORIGIN)
        .send({ email: credentials.email });
    await resend().expect(200);
    const refused = await resend();
    expectError(refused, 429, 'RATE_LIMITED');
    const retryAfter = Number(refused.headers['retry-after']);
    expect([1, 2]).toContain(retryAfter);
    expectError(await resend(), 429, 'RATE_LIMITED');

    await new Promise((resolve) => setTimeout(resolve, retryAfter * 1000));
    await resend().expect(200);
    const sent = (await t.outbox()).filter((mail) => mail.to === credentials.email);
    expect(sent).toHaveLength(3);
  });
});
