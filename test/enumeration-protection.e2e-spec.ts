import { AddressInfo, Server, Socket, createServer } from 'node:net';
import { Response } from 'supertest';
import { AfterAnswer } from '../src/mail/after-answer.service';
import { User } from '../src/users/user.entity';
import { expectError, login, uniqueUser } from './support/auth-helpers';
import { SmtpSink } from './support/mailbox';
import { eventually } from './support/shared-redis';
import { APP_ORIGIN, TestApp, startTestApp } from './support/test-app';

const PROTECTED = { ACCOUNT_ENUMERATION_PROTECTION: 'true' };
const RESET = /^Reset your/;
const VERIFY = /^Verify your email/;
const ATTEMPT = /^Someone tried to sign up/;
const REGISTERED = 'Registration successful. A verification email is on its way: check your inbox.';

/** What tells two answers apart, less what differs on every request. */
function seen(response: Response, ...alsoVarying: string[]) {
  const headers = { ...response.headers };
  for (const name of ['date', 'x-request-id', ...alsoVarying]) delete headers[name];
  return { status: response.status, body: response.body as unknown, headers };
}

/**
 * Issue 22, item 12 (ASVS 6.3.8): with ACCOUNT_ENUMERATION_PROTECTION=true nothing a client sees
 * tells whether an address has an account: the answers are alike, the mail goes out after the
 * answer, and the per-address mail cap counts every address typed. Requests are sent as the
 * example app's pages send them (its Origin).
 */
describe('ACCOUNT_ENUMERATION_PROTECTION=true', () => {
  let sink: SmtpSink;
  let t: TestApp;

  beforeAll(async () => {
    sink = await new SmtpSink().start();
    t = await startTestApp({ ...PROTECTED, SMTP_URL: sink.url, MAIL_RECIPIENT_LIMIT: '3' });
  });
  afterAll(async () => {
    await t?.close();
    await sink?.stop();
  });

  const post = (path: string, body: object) =>
    t.http().post(`/api/v1${path}`).set('Origin', APP_ORIGIN).send(body);
  const mails = (to: string, subject: RegExp) =>
    sink.to(to).filter((mail) => subject.test(mail.subject));
  /** Everything the service does after its answers (the mail) is done. */
  const settled = () => t.app.get(AfterAnswer).settled();
  const register = async (prefix: string, verified: boolean) => {
    const credentials = uniqueUser(prefix);
    const response = await post('/auth/register', credentials).expect(201);
    await eventually(() => mails(credentials.email, VERIFY).length === 1, 5000);
    if (verified) {
      await post('/auth/verify-email', { token: mails(credentials.email, VERIFY)[0].token }).expect(
        200,
      );
    }
    return { credentials, id: response.body.data.user.id as string };
  };

  it('answers forgot-password, reset-password {email} and resend alike for every address, and mails only the accounts concerned', async () => {
    const verified = (await register('Verified', true)).credentials.email;
    const unverified = (await register('Unverified', false)).credentials.email;
    const unknown = uniqueUser('Unknown').email;
    const routes: Array<[string, string]> = [
      [
        '/auth/forgot-password',
        'If an account uses this address, a password reset email is on its way',
      ],
      [
        '/auth/reset-password',
        'If an account uses this address, a password reset email is on its way',
      ],
      [
        '/auth/resend-verification-email',
        'If an unverified account uses this address, a verification email is on its way',
      ],
    ];
    for (const [path, message] of routes) {
      const answers = [];
      for (const email of [verified, unverified.toUpperCase(), unknown]) {
        answers.push(seen(await post(path, { email })));
      }
      expect(answers[0]).toMatchObject({ status: 200, body: { success: true, message } });
      expect(answers[1]).toEqual(answers[0]);
      expect(answers[2]).toEqual(answers[0]);
    }

    await settled();
    expect(mails(verified, RESET)).toHaveLength(2);
    expect(mails(unverified, RESET)).toHaveLength(2);
    expect(mails(verified, VERIFY)).toHaveLength(1);
    expect(mails(unverified, VERIFY)).toHaveLength(2);
    expect(sink.to(unknown)).toHaveLength(0);
    // The links mailed after the answers work as any other.
    await post('/auth/reset-password', {
      token: mails(verified, RESET)[1].token,
      newPassword: 'after-the-answer',
    }).expect(200);
    await post('/auth/verify-email', { token: mails(unverified, VERIFY)[1].token }).expect(200);
  });

  it('answers a registration with a taken email as a new one, creates nothing, and tells the owner', async () => {
    const owner = await register('Owner', true);
    const fresh = uniqueUser('Fresh');
    const intruder = {
      ...uniqueUser('Intruder'),
      email: owner.credentials.email.toUpperCase(),
      password: 'the intruder’s own',
    };

    const created = await post('/auth/register', fresh);
    const hidden = await post('/auth/register', intruder);

    expect(hidden.status).toBe(201);
    expect(hidden.body).toEqual({
      success: true,
      message: REGISTERED,
      data: {
        user: {
          id: expect.stringMatching(/^user_\d{18}$/),
          email: intruder.email,
          username: intruder.username,
          role: 'user',
          email_verified: false,
          name: null,
          picture: null,
          created_at: expect.any(String),
          updated_at: hidden.body.data.user.created_at,
        },
      },
    });
    expect(hidden.body.data.user.id).not.toBe(owner.id);
    expect(Object.keys(hidden.body.data.user)).toEqual(Object.keys(created.body.data.user));
    expect(seen(hidden, 'content-length')).toEqual({
      ...seen(created, 'content-length'),
      body: hidden.body,
    });

    // Nothing was written: no account has that id or username, and the owner's stays as it was.
    const users = t.dataSource.getRepository(User);
    expect(await users.existsBy({ id: hidden.body.data.user.id })).toBe(false);
    expect(await users.existsBy({ username: intruder.username })).toBe(false);
    expectError(
      await post('/auth/login', { email: owner.credentials.email, password: intruder.password }),
      401,
      'LOGIN_FAILED',
    );
    await login(t, owner.credentials);

    await settled();
    expect(mails(fresh.email, VERIFY)).toHaveLength(1);
    const [notice, ...more] = mails(owner.credentials.email, ATTEMPT);
    expect(more).toHaveLength(0);
    expect(notice.subject).toBe('Someone tried to sign up for Auth Service with your email');
    expect(notice.text).toContain(`Hello ${owner.credentials.username},`);
    expect(notice.text).toContain('Forgot password');
    // Nothing in it logs anyone in, and nothing the intruder typed reaches the owner.
    expect(notice.text).not.toMatch(/https?:/);
    expect(notice.html).not.toMatch(/href=/);
    expect(notice.raw).not.toContain(intruder.username);
  });

  it('still refuses a taken username with 409, whether or not the email is taken too', async () => {
    const owner = await register('Named', false);
    const byUsername = await post('/auth/register', {
      ...uniqueUser(),
      username: owner.credentials.username,
    });
    const byBoth = await post('/auth/register', {
      ...uniqueUser(),
      email: owner.credentials.email,
      username: owner.credentials.username.toUpperCase(),
    });
    expectError(byUsername, 409, 'REGISTRATION_FAILED');
    expect(byUsername.body.message).toBe('This username is already taken');
    // Only the username is named: the address's account stays unsaid.
    expect(byUsername.body.details).toEqual([
      { field: 'username', message: 'This username is already taken' },
    ]);
    expect(seen(byBoth)).toEqual(seen(byUsername));
    await settled();
    expect(mails(owner.credentials.email, ATTEMPT)).toHaveLength(0);
  });

  it('caps mail to known and unknown addresses alike, and still never refuses a registration', async () => {
    const known = (await register('CapKnown', false)).credentials.email;
    const unknown = uniqueUser('CapUnknown').email;
    const refused = [];
    for (const email of [known, unknown]) {
      for (let i = 0; i < 3; i++) await post('/auth/forgot-password', { email }).expect(200);
      refused.push(await post('/auth/forgot-password', { email }));
    }
    for (const response of refused) {
      expectError(response, 429, 'RATE_LIMITED');
      expect(Number(response.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    }
    expect(seen(refused[1], 'retry-after')).toEqual(seen(refused[0], 'retry-after'));

    // An unknown address out of verification mails can still register; no mail goes out.
    const newcomer = uniqueUser('Newcomer');
    for (let i = 0; i < 3; i++) {
      await post('/auth/resend-verification-email', { email: newcomer.email }).expect(200);
    }
    expectError(
      await post('/auth/resend-verification-email', { email: newcomer.email }),
      429,
      'RATE_LIMITED',
    );
    const registered = await post('/auth/register', newcomer).expect(201);
    expect(registered.body.message).toBe(REGISTERED);
    await settled();
    expect(sink.to(newcomer.email)).toHaveLength(0);
    expect(sink.to(unknown)).toHaveLength(0);
    expect(mails(known, RESET)).toHaveLength(3);
    await login(t, newcomer);
  });
});

describe('ACCOUNT_ENUMERATION_PROTECTION=true with an SMTP server that never answers', () => {
  let silent: Server;
  const sockets = new Set<Socket>();
  let t: TestApp;

  beforeAll(async () => {
    silent = createServer((socket) => sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as AddressInfo).port;
    t = await startTestApp({
      ...PROTECTED,
      SMTP_URL: `smtp://127.0.0.1:${port}`,
      SMTP_TIMEOUT_MS: '3000',
    });
  });
  afterAll(async () => {
    await t?.close();
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => silent.close(resolve));
  });

  it('answers before mailing, and a mail that fails afterwards fails nobody', async () => {
    const credentials = uniqueUser('Unhurried');
    const started = Date.now();
    const registered = await t
      .http()
      .post('/api/v1/auth/register')
      .set('Origin', APP_ORIGIN)
      .send(credentials);
    const reset = await t
      .http()
      .post('/api/v1/auth/forgot-password')
      .set('Origin', APP_ORIGIN)
      .send({ email: credentials.email });
    // Each mail would take SMTP_TIMEOUT_MS to fail; the answers did not wait for them.
    expect(Date.now() - started).toBeLessThan(2000);
    expect(registered.status).toBe(201);
    expect(registered.body.message).toBe(REGISTERED);
    expect(reset.status).toBe(200);

    await t.app.get(AfterAnswer).settled();
    await t.http().get('/api/v1/health').expect(200);
    await login(t, credentials);
  });
});
