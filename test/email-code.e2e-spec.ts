import * as jwt from 'jsonwebtoken';
import { Response } from 'supertest';
import { AfterAnswer } from '../src/mail/after-answer.service';
import { EmailCodes } from '../src/email-codes/email-codes.service';
import { Metrics } from '../src/metrics/metrics.service';
import { hashToken } from '../src/tokens/token-hash';
import { Authenticator } from './support/authenticator';
import {
  PASSWORD,
  cookiesOf,
  expectError,
  refreshWith,
  registerAndLogin,
  registerUser,
  uniqueUser,
} from './support/auth-helpers';
import { ReceivedMail, SmtpSink } from './support/mailbox';
import { eventually } from './support/shared-redis';
import { APP_ORIGIN, TestApp, startTestApp } from './support/test-app';

const SUBJECT = 'Your sign-in code for Auth Service';
const SIGN_IN_PAGE = `${APP_ORIGIN}/sign-in`;

/** The six digits a person reads in the mail's text part. */
const codeOf = (mail: ReceivedMail) => /\n(\d{6})\n/.exec(mail.text)?.[1] ?? '';
/** Where a mail's code stands among `ids` (its rows' ids in order): -1 for one not there. */
const rank = (ids: string[], mail: ReceivedMail) => ids.indexOf(hashToken(mail.token));

/**
 * Issue 26, item 4: signing in with a one-time code by email. Mail goes through a real SMTP
 * server on loopback and is read as a person would read it; requests are sent as the example
 * app's pages send them (its Origin).
 */
describe('sign-in with a code by email', () => {
  let sink: SmtpSink;
  let t: TestApp;

  beforeAll(async () => {
    sink = await new SmtpSink().start();
    t = await startTestApp({
      SMTP_URL: sink.url,
      EMAIL_CODE_ATTEMPTS: '3',
      LOGIN_FAILURES_FREE: '4',
      LOGIN_BACKOFF_BASE: '30',
      LOGIN_BACKOFF_MAX: '60',
      LOGIN_FAILURES_RESET: '60',
    });
  });
  afterAll(async () => {
    await t?.close();
    await sink?.stop();
  });

  const post = (path: string, body: object) =>
    t.http().post(`/api/v1${path}`).set('Origin', APP_ORIGIN).send(body);
  const verify = (body: object) => post('/auth/email-code/verify', body);
  /** Asks for a code (for `email` as typed) and reads the mail it brought to `email`. */
  async function mailedCode(email: string, { ownPage = false, typed = email } = {}) {
    const before = sink.to(email).length;
    const answer = await post('/auth/email-code', {
      email: typed,
      ...(ownPage ? {} : { applicationUrl: SIGN_IN_PAGE }),
    }).expect(200);
    // The lifetime, for a page to say (EMAIL_CODE_TTL, 600 s by default).
    expect(answer.body).toEqual({
      success: true,
      message: 'Sign-in code sent',
      data: { expires_in: 600 },
    });
    const mails = sink.to(email);
    expect(mails).toHaveLength(before + 1);
    const mail = mails[mails.length - 1];
    return { mail, code: codeOf(mail), token: mail.token };
  }
  const markVerified = (userId: string) =>
    t.dataSource.query('UPDATE users SET email_verified = ? WHERE id = ?', [true, userId]);
  const amrOf = (response: Response) =>
    (jwt.decode(cookiesOf(response).access_token.value) as { amr: string[] }).amr;
  const auditOf = async (userId: string) =>
    (
      await t.dataSource.query<Array<{ type: string }>>(
        'SELECT type FROM audit_events WHERE user_id = ? ORDER BY created_at',
        [userId],
      )
    ).map((row) => row.type);

  it('mails a code and a link; the code signs in once, verifies the email, and the link dies with it', async () => {
    const { credentials, user } = await registerUser(t, uniqueUser('code'));
    const { mail, code, token } = await mailedCode(credentials.email, {
      typed: credentials.email.toUpperCase(),
    });
    expect(mail).toMatchObject({ to: credentials.email, subject: SUBJECT });
    expect(code).toMatch(/^\d{6}$/);
    expect(mail.link.startsWith(`${SIGN_IN_PAGE}?token=`)).toBe(true);
    expect(mail.html).toContain(code);
    expect(mail.text).toContain('valid for 10 minutes');

    // Stored hashed: neither the code nor the link's token is in the row; ten minutes to live.
    const [row] = await t.dataSource.query<Array<Record<string, unknown>>>(
      'SELECT * FROM email_codes WHERE user_id = ?',
      [user.id],
    );
    expect(JSON.stringify(row)).not.toContain(code);
    expect(JSON.stringify(row)).not.toContain(token);
    expect(
      new Date(row.expires_at as string).getTime() - new Date(row.created_at as string).getTime(),
    ).toBe(600_000);

    const signedIn = await verify({ email: credentials.email, code }).expect(200);
    expect(signedIn.body).toMatchObject({
      success: true,
      message: 'Login successful',
      data: { user: { id: user.id, email: credentials.email, email_verified: true } },
    });
    expect(amrOf(signedIn)).toEqual(['otp']);
    const access = cookiesOf(signedIn).access_token.value;
    await t.http().get('/api/v1/users/me').set('Authorization', `Bearer ${access}`).expect(200);

    expectError(await verify({ email: credentials.email, code }), 401, 'LOGIN_FAILED');
    expectError(await verify({ token }), 401, 'LOGIN_FAILED');
    expect(await auditOf(user.id)).toEqual(
      expect.arrayContaining([
        'email_code_requested',
        'email_verified',
        'login_succeeded',
        'email_code_failed',
      ]),
    );
  });

  it("ends a pre-registered account's other sessions and voids its password when a code first proves the mailbox", async () => {
    // Someone registers the victim's address with a password of their own and stays signed in
    // (login does not need a verified email); the victim later signs in with a mailed code.
    const attacker = await registerAndLogin(t, uniqueUser('preaccount'));
    const email = attacker.credentials.email;
    // They also ask to move the account to an address of theirs, to confirm later.
    const theirs = uniqueUser('theirs').email;
    await t
      .http()
      .post('/api/v1/users/me/email')
      .set('Authorization', `Bearer ${attacker.access}`)
      .set('Origin', APP_ORIGIN)
      .send({ password: PASSWORD, newEmail: theirs })
      .expect(200);
    const changeToken = sink.to(theirs).at(-1)!.token;
    const { code } = await mailedCode(email);
    const victim = await verify({ email, code }).expect(200);
    expect(victim.body.data.user.email_verified).toBe(true);
    const me = (access: string) =>
      t.http().get('/api/v1/users/me').set('Authorization', `Bearer ${access}`);
    expectError(await me(attacker.access), 401, 'INVALID_TOKEN');
    expect((await refreshWith(t, attacker.refresh)).status).toBe(401);
    expectError(await post('/auth/login', { email, password: PASSWORD }), 401, 'LOGIN_FAILED');
    // The change asked for with that password dies with it, as after a password reset.
    expectError(
      await post('/users/me/email/confirm', { token: changeToken }),
      401,
      'INVALID_TOKEN',
    );
    expect(await auditOf(attacker.user.id)).toEqual(
      expect.arrayContaining(['password_changed', 'email_verified']),
    );
    // The victim's own session is the one that stays.
    await me(cookiesOf(victim).access_token.value).expect(200);
  });

  it("leaves a verified account's password and sessions alone on a code sign-in", async () => {
    const owner = await registerAndLogin(t, uniqueUser('verified'));
    const email = owner.credentials.email;
    await markVerified(owner.user.id);
    const { code } = await mailedCode(email);
    await verify({ email, code }).expect(200);
    expect(await auditOf(owner.user.id)).not.toContain('password_changed');
    await t
      .http()
      .get('/api/v1/users/me')
      .set('Authorization', `Bearer ${owner.access}`)
      .expect(200);
    await post('/auth/login', { email, password: PASSWORD }).expect(200);
  });

  it('signs in once with the link (body tokens on request), and the code dies with it', async () => {
    const { credentials } = await registerUser(t, uniqueUser('link'));
    const { code, token } = await mailedCode(credentials.email);
    const tokens = await t
      .http()
      .post('/api/v1/auth/email-code/verify')
      .set('X-Token-Delivery', 'body')
      .send({ token })
      .expect(200);
    expect(tokens.body).toMatchObject({ token_type: 'Bearer', expires_in: 900 });
    expect(jwt.decode(tokens.body.access_token as string)).toMatchObject({ amr: ['otp'] });
    expectError(await verify({ token }), 401, 'LOGIN_FAILED');
    expectError(await verify({ email: credentials.email, code }), 401, 'LOGIN_FAILED');
  });

  it("links to the service's own page without applicationUrl; opening it uses nothing", async () => {
    const { credentials } = await registerUser(t, uniqueUser('page'));
    const { mail, token } = await mailedCode(credentials.email, { ownPage: true });
    const link = new URL(mail.link);
    expect(link.pathname).toBe('/api/v1/auth/email-code/verify');
    const page = await t.http().get(`${link.pathname}${link.search}`).expect(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.text).not.toContain(token);
    await verify({ token }).expect(200);
  });

  it('keeps only the newest code alive, and refuses an expired one', async () => {
    const { credentials, user } = await registerUser(t, uniqueUser('newest'));
    const older = await mailedCode(credentials.email);
    const newer = await mailedCode(credentials.email);
    expectError(await verify({ token: older.token }), 401, 'LOGIN_FAILED');
    // (Two codes in a row are the same once in a million: then there is no older one to try.)
    if (older.code !== newer.code) {
      expectError(
        await verify({ email: credentials.email, code: older.code }),
        401,
        'LOGIN_FAILED',
      );
    }
    await t.dataSource.query('UPDATE email_codes SET expires_at = ? WHERE user_id = ?', [
      t.database.kind === 'mysql' ? new Date(Date.now() - 1000) : '2000-01-01 00:00:00.000',
      user.id,
    ]);
    expectError(await verify({ email: credentials.email, code: newer.code }), 401, 'LOGIN_FAILED');
    expectError(await verify({ token: newer.token }), 401, 'LOGIN_FAILED');
    // A fresh one works.
    await verify({ token: (await mailedCode(credentials.email)).token }).expect(200);
  });

  it('keeps the newer of two codes asked for at once (a double click) alive', async () => {
    const { credentials, user } = await registerUser(t, uniqueUser('double'));
    const ask = () =>
      post('/auth/email-code', { email: credentials.email, applicationUrl: SIGN_IN_PAGE });
    /** Both mails of a double click, the one issued first first. */
    async function doubleClick() {
      const before = sink.to(credentials.email).length;
      const answers = await Promise.all([ask(), ask()]);
      expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
      const mails = sink.to(credentials.email).slice(before);
      expect(mails).toHaveLength(2);
      const issued = (
        await t.dataSource.query<Array<{ id: string }>>(
          'SELECT id FROM email_codes WHERE user_id = ? ORDER BY created_at, id',
          [user.id],
        )
      ).map((row) => row.id);
      const [older, newer] = [...mails]
        .sort((a, b) => rank(issued, a) - rank(issued, b))
        .map((mail) => ({ code: codeOf(mail), token: mail.token }));
      return { older, newer };
    }
    // The person sees two mails; the one whose code was issued last signs in, code or link, and
    // the other is refused as an older code is (before, each request retired the other's code,
    // so both mails were refused and the person had to ask a third time).
    const first = await doubleClick();
    expectError(await verify({ token: first.older.token }), 401, 'LOGIN_FAILED');
    await verify({ token: first.newer.token }).expect(200);
    const second = await doubleClick();
    if (second.older.code !== second.newer.code) {
      expectError(
        await verify({ email: credentials.email, code: second.older.code }),
        401,
        'LOGIN_FAILED',
      );
    }
    await verify({ email: credentials.email, code: second.newer.code }).expect(200);
  });

  it('kills a code and its link after EMAIL_CODE_ATTEMPTS wrong codes', async () => {
    const { credentials } = await registerUser(t, uniqueUser('guess'));
    const { code, token } = await mailedCode(credentials.email);
    const wrong = code === '000000' ? '000001' : '000000';
    for (let i = 0; i < 3; i++) {
      const refused = await verify({ email: credentials.email, code: wrong });
      expectError(refused, 401, 'LOGIN_FAILED');
      expect(refused.body.message).toBe('The code is wrong, expired or already used');
    }
    expectError(await verify({ email: credentials.email, code }), 401, 'LOGIN_FAILED');
    expectError(await verify({ token }), 401, 'LOGIN_FAILED');
  });

  it("counts wrong codes towards the account's login slow-down, with wrong passwords", async () => {
    const { credentials, user } = await registerUser(t, uniqueUser('slow'));
    // Verified: a code that first proves the mailbox voids the password this test logs in with.
    await markVerified(user.id);
    const { code, token: lastToken } = await mailedCode(credentials.email);
    const wrong = code === '000000' ? '000001' : '000000';
    for (let i = 0; i < 2; i++) {
      expectError(await verify({ email: credentials.email, code: wrong }), 401, 'LOGIN_FAILED');
    }
    for (let i = 0; i < 2; i++) {
      expectError(
        await post('/auth/login', { email: credentials.email, password: 'not-it' }),
        401,
        'LOGIN_FAILED',
      );
    }
    // Four failures: the account waits, whatever comes next, the right code and password too.
    const waiting = await verify({ email: credentials.email, code });
    expectError(waiting, 429, 'RATE_LIMITED');
    expect(Number(waiting.headers['retry-after'])).toBeGreaterThan(0);
    expectError(
      await post('/auth/login', { email: credentials.email, password: PASSWORD }),
      429,
      'RATE_LIMITED',
    );
    // The link cannot be guessed: it is not held up, and it starts the account afresh.
    await verify({ token: lastToken }).expect(200);
    await post('/auth/login', { email: credentials.email, password: PASSWORD }).expect(200);
    // An address without an account is slowed down alike.
    const nobody = uniqueUser('nobody').email;
    for (let i = 0; i < 4; i++) {
      expectError(await verify({ email: nobody, code: wrong }), 401, 'LOGIN_FAILED');
    }
    expectError(await verify({ email: nobody, code: wrong }), 429, 'RATE_LIMITED');
  });

  it('answers 503 EMAIL_SERVICE_ERROR when the mail cannot be sent, and leaves no code behind', async () => {
    const { credentials, user } = await registerUser(t, uniqueUser('nomail'));
    sink.refuse = { responseCode: 550, message: 'Mailbox unavailable' };
    try {
      expectError(
        await post('/auth/email-code', { email: credentials.email }),
        503,
        'EMAIL_SERVICE_ERROR',
      );
    } finally {
      sink.refuse = undefined;
    }
    const rows = await t.dataSource.query<unknown[]>(
      'SELECT id FROM email_codes WHERE user_id = ?',
      [user.id],
    );
    expect(rows).toEqual([]);
  });

  it('answers 404 USER_NOT_FOUND for an address no account uses, as forgot-password does', async () => {
    const nobody = uniqueUser('unknown').email;
    expectError(await post('/auth/email-code', { email: nobody }), 404, 'USER_NOT_FOUND');
    expectError(await post('/auth/forgot-password', { email: nobody }), 404, 'USER_NOT_FOUND');
    expect(sink.to(nobody)).toEqual([]);
  });

  it('refuses a disabled account as login does, to whoever holds the code', async () => {
    const { credentials, user } = await registerUser(t, uniqueUser('disabled'));
    await t.dataSource.query('UPDATE users SET disabled_at = created_at WHERE id = ?', [user.id]);
    const { code } = await mailedCode(credentials.email);
    const refused = await verify({ email: credentials.email, code });
    expectError(refused, 403, 'ACCOUNT_DISABLED');
    expect(refused.headers['set-cookie']).toBeUndefined();
    expectError(
      await post('/auth/login', { email: credentials.email, password: PASSWORD }),
      403,
      'ACCOUNT_DISABLED',
    );
  });

  it('asks for the second factor as password login does, then starts the session with both', async () => {
    const session = await registerAndLogin(t, uniqueUser('twostep'));
    await markVerified(session.user.id);
    const bearer = { Authorization: `Bearer ${session.access}` };
    const begun = await t.http().post('/api/v1/users/me/mfa/totp').set(bearer).expect(200);
    const app = new Authenticator(begun.body.data.secret as string);
    await t
      .http()
      .post('/api/v1/users/me/mfa/totp/confirm')
      .set(bearer)
      .send({ code: await app.code() })
      .expect(200);

    const { code } = await mailedCode(session.credentials.email);
    const step = await verify({ email: session.credentials.email, code }).expect(200);
    expect(step.body).toEqual({
      success: true,
      message: 'Second factor required',
      data: {
        mfa_required: true,
        challenge: expect.any(String),
        methods: ['totp', 'recovery_code'],
      },
    });
    expect(step.headers['set-cookie']).toBeUndefined();
    const done = await post('/auth/mfa/verify', {
      challenge: step.body.data.challenge,
      code: await app.code(),
    }).expect(200);
    expect(amrOf(done)).toEqual(['otp', 'mfa']);
    // A password login of the same account still says pwd and otp.
    const byPassword = await post('/auth/login', {
      email: session.credentials.email,
      password: PASSWORD,
    }).expect(200);
    const second = await post('/auth/mfa/verify', {
      challenge: byPassword.body.data.challenge,
      code: await app.code(),
    }).expect(200);
    expect(amrOf(second)).toEqual(['pwd', 'otp']);
  });

  it('counts codes and links checked by outcome, and the mails', async () => {
    // Its own counts, the change measured across them: it does not lean on what ran before.
    const counts = async () => {
      const registry = t.app.get(Metrics).registry;
      const value = async (name: string, labels: Record<string, string>) =>
        (await registry.getSingleMetric(name)!.get()).values.find((entry) =>
          Object.entries(labels).every(([key, wanted]) => entry.labels[key] === wanted),
        )?.value ?? 0;
      return {
        codeOk: await value('auth_email_code_sign_ins_total', { proof: 'code', outcome: 'ok' }),
        codeFailed: await value('auth_email_code_sign_ins_total', {
          proof: 'code',
          outcome: 'failed',
        }),
        linkOk: await value('auth_email_code_sign_ins_total', { proof: 'link', outcome: 'ok' }),
        linkFailed: await value('auth_email_code_sign_ins_total', {
          proof: 'link',
          outcome: 'failed',
        }),
        mailed: await value('auth_emails_total', { kind: 'email_code', outcome: 'sent' }),
      };
    };
    const { credentials } = await registerUser(t, uniqueUser('metrics'));
    const email = credentials.email;
    const before = await counts();
    const first = await mailedCode(email);
    const wrong = first.code === '000000' ? '000001' : '000000';
    expectError(await verify({ email, code: wrong }), 401, 'LOGIN_FAILED');
    await verify({ email, code: first.code }).expect(200);
    expectError(await verify({ token: first.token }), 401, 'LOGIN_FAILED');
    await verify({ token: (await mailedCode(email)).token }).expect(200);
    expect(await counts()).toEqual({
      codeOk: before.codeOk + 1,
      codeFailed: before.codeFailed + 1,
      linkOk: before.linkOk + 1,
      linkFailed: before.linkFailed + 1,
      mailed: before.mailed + 2,
    });
  });

  it('gives one session to the right code or link used at once, many times', async () => {
    const { credentials } = await registerUser(t, uniqueUser('race'));
    const email = credentials.email;
    const { code, token } = await mailedCode(email);
    const answers = await Promise.all([
      ...Array.from({ length: 4 }, () => verify({ email, code })),
      ...Array.from({ length: 4 }, () => verify({ token })),
    ]);
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses).toEqual([200, 401, 401, 401, 401, 401, 401, 401]);
  });

  it('counts every one of many wrong codes at once, and the code dies at EMAIL_CODE_ATTEMPTS', async () => {
    const { credentials, user } = await registerUser(t, uniqueUser('guesses'));
    const email = credentials.email;
    const { code, token } = await mailedCode(email);
    const wrong = code === '000000' ? '000001' : '000000';
    // Eight at once against EMAIL_CODE_ATTEMPTS=3 (and the slow-down after 4): refused, or
    // held up; none gets past the lock uncounted.
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => verify({ email, code: wrong })),
    );
    for (const answer of answers) expect([401, 429]).toContain(answer.status);
    const [row] = await t.dataSource.query<Array<{ attempts: number }>>(
      'SELECT attempts FROM email_codes WHERE user_id = ?',
      [user.id],
    );
    expect(Number(row.attempts)).toBeLessThanOrEqual(3);
    // Dead: the link (which the slow-down does not hold up) is refused with it.
    expectError(await verify({ token }), 401, 'LOGIN_FAILED');
  });

  it.each<[string, object]>([
    ['an empty body', {}],
    ['a code without an email', { code: '123456' }],
    ['an email without a code', { email: 'ann@example.com' }],
    ['a code that is not six digits', { email: 'ann@example.com', code: '12345' }],
    ['a code that is not a string', { email: 'ann@example.com', code: 123456 }],
    ['a token with an email', { token: 'abc', email: 'ann@example.com' }],
    ['an empty token', { token: '' }],
    ['a bad email', { email: 'not-an-email', code: '123456' }],
    ['an unknown field', { token: 'abc', remember: true }],
    ['a null token', { token: null }],
    ['a null email with a code', { email: null, code: '123456' }],
    ['a null code with an email', { email: 'ann@example.com', code: null }],
  ])('refuses %s with 400 VALIDATION_ERROR naming the field', async (_name, body) => {
    const response = await verify(body);
    expectError(response, 400, 'VALIDATION_ERROR');
    expect(response.body.details).toEqual(
      expect.arrayContaining([{ field: expect.any(String), message: expect.any(String) }]),
    );
  });

  it('refuses a bad request for a code with 400 VALIDATION_ERROR, and mails nothing', async () => {
    const { credentials } = await registerUser(t, uniqueUser('badrequest'));
    const before = sink.to(credentials.email).length;
    for (const body of [
      {},
      { email: 'not-an-email' },
      { email: credentials.email, applicationUrl: 'https://evil.example/sign-in' },
      { email: credentials.email, extra: 1 },
    ]) {
      expectError(await post('/auth/email-code', body), 400, 'VALIDATION_ERROR');
    }
    expect(sink.to(credentials.email)).toHaveLength(before);
  });
});

describe('sign-in with a code by email: the mail cap and ACCOUNT_ENUMERATION_PROTECTION', () => {
  let sink: SmtpSink;
  let t: TestApp;

  beforeAll(async () => {
    sink = await new SmtpSink().start();
    t = await startTestApp({
      SMTP_URL: sink.url,
      ACCOUNT_ENUMERATION_PROTECTION: 'true',
      MAIL_RECIPIENT_LIMIT: '2',
    });
  });
  afterAll(async () => {
    await t?.close();
    await sink?.stop();
  });

  const ask = (email: string) =>
    t.http().post('/api/v1/auth/email-code').set('Origin', APP_ORIGIN).send({ email });
  /** What tells two answers apart, less what differs on every request. */
  const seen = (response: Response) => {
    const headers = { ...response.headers };
    for (const name of ['date', 'x-request-id']) delete headers[name];
    return { status: response.status, body: response.body as unknown, headers };
  };

  it('answers alike for known and unknown addresses, mails only the account, caps both alike', async () => {
    const { credentials } = await registerUser(t, uniqueUser('known'));
    await eventually(() => sink.to(credentials.email).length === 1, 5000);
    const unknown = uniqueUser('unknown').email;
    const known = [await ask(credentials.email), await ask(credentials.email)];
    const absent = [await ask(unknown), await ask(unknown)];
    expect(known.map(seen)).toEqual(absent.map(seen));
    expect(known[0].body).toEqual({
      success: true,
      message: 'If an account uses this address, a sign-in code is on its way',
      data: { expires_in: 600 },
    });
    await t.app.get(AfterAnswer).settled();
    expect(sink.to(credentials.email).filter((mail) => mail.subject === SUBJECT)).toHaveLength(2);
    expect(sink.to(unknown)).toEqual([]);

    // The third of the window: 429 for either, and no mail.
    const capped = [await ask(credentials.email), await ask(unknown)];
    for (const response of capped) {
      expectError(response, 429, 'RATE_LIMITED');
      expect(Number(response.headers['retry-after'])).toBeGreaterThan(0);
    }
    expect(seen(capped[0]).body).toEqual(seen(capped[1]).body);
    await t.app.get(AfterAnswer).settled();
    expect(sink.to(credentials.email).filter((mail) => mail.subject === SUBJECT)).toHaveLength(2);
    // Its own kind: the cap of reset mails is untouched.
    await t
      .http()
      .post('/api/v1/auth/forgot-password')
      .send({ email: credentials.email })
      .expect(200);
  });
  it('checks a code for an unknown address with the same locked lookup as for an account', async () => {
    // Answers that differ in time would tell known addresses from unknown ones: an unknown one
    // goes through the same transaction (there is no timing assertion; the work is what is checked).
    const { credentials } = await registerUser(t, uniqueUser('alike'));
    const useCode = jest.spyOn(t.app.get(EmailCodes), 'useCode');
    try {
      for (const email of [credentials.email, uniqueUser('nobody').email]) {
        const response = await t
          .http()
          .post('/api/v1/auth/email-code/verify')
          .set('Origin', APP_ORIGIN)
          .send({ email, code: '000000' });
        expectError(response, 401, 'LOGIN_FAILED');
      }
      expect(useCode).toHaveBeenCalledTimes(2);
      expect(useCode.mock.calls[1][0]).toEqual(expect.any(String));
    } finally {
      useCode.mockRestore();
    }
  });
});

describe('sign-in with a code by email: switched off, and the strict rate limit', () => {
  let off: TestApp;
  let limited: TestApp;

  beforeAll(async () => {
    off = await startTestApp({ EMAIL_CODE_LOGIN: 'false', THROTTLE_AUTH_LIMIT: '3' });
    limited = await startTestApp({ THROTTLE_AUTH_LIMIT: '5', THROTTLE_LIMIT: '50' });
  });
  afterAll(async () => {
    await off?.close();
    await limited?.close();
  });

  it('answers every route 404 NOT_FOUND with EMAIL_CODE_LOGIN=false, as an unknown route', async () => {
    const { credentials } = await registerUser(off, uniqueUser('off'));
    const unknown = await off.http().post('/api/v1/auth/no-such-route').send({});
    expectError(unknown, 404, 'NOT_FOUND');
    for (const response of [
      await off.http().post('/api/v1/auth/email-code').send({ email: credentials.email }),
      await off.http().post('/api/v1/auth/email-code/verify').send({ token: 'abc' }),
      await off.http().get('/api/v1/auth/email-code/verify?token=abc'),
    ]) {
      expect({ status: response.status, body: response.body }).toEqual({
        status: 404,
        body: unknown.body,
      });
      expect(response.headers['content-type']).toMatch(/^application\/json/);
    }
    const mails = (await off.outbox()).filter((mail) => mail.to === credentials.email);
    expect(mails.map((mail) => mail.subject)).not.toContain(SUBJECT);
    // Its series are there at 0 all the same: an alert sees the first event after a restart.
    const text = await off.app.get(Metrics).registry.metrics();
    for (const series of [
      'auth_email_code_sign_ins_total{proof="code",outcome="ok"} 0',
      'auth_email_code_sign_ins_total{proof="code",outcome="failed"} 0',
      'auth_email_code_sign_ins_total{proof="link",outcome="ok"} 0',
      'auth_email_code_sign_ins_total{proof="link",outcome="failed"} 0',
      'auth_emails_total{kind="email_code",outcome="capped"} 0',
    ]) {
      expect(text).toContain(`\n${series}\n`);
    }
  });

  it('leaves email_code out of the sign-in methods when switched off, and lists it when on', async () => {
    const methods = async (t: TestApp) =>
      (await t.http().get('/api/v1/auth/sign-in-methods').expect(200)).body as unknown;
    expect(await methods(off)).toEqual({
      success: true,
      message: 'Sign-in methods',
      data: { methods: ['password', 'passkey'] },
    });
    expect(await methods(limited)).toMatchObject({
      data: { methods: ['password', 'passkey', 'email_code'] },
    });
  });

  it('spends no strict budget on a switched-off route, as an absent one spends none', async () => {
    // Twice the strict budget (3): before, the strict limit ran first, so the fourth call was a
    // 429 where an absent route answers 404, and login from the same address was then refused.
    // Both take the general limit alike (test/throttling.e2e-spec.ts).
    const routes = [
      () => off.http().post('/api/v1/auth/email-code').send({ email: 'x@example.com' }),
      () => off.http().post('/api/v1/auth/email-code/verify').send({ token: 'abc' }),
      () => off.http().get('/api/v1/auth/email-code/verify?token=abc'),
    ];
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await routes[i % routes.length]()).status);
    expect(statuses).toEqual([404, 404, 404, 404, 404, 404]);
    expectError(
      await off.http().post('/api/v1/auth/login').send({ email: 'x@example.com', password: 'no' }),
      401,
      'LOGIN_FAILED',
    );
  });

  it('draws both routes from the strict budget of login, and leaves the page on the general one', async () => {
    const { credentials } = await registerUser(limited, uniqueUser('limited'));
    const http = () => limited.http();
    const attempts = [
      await http().post('/api/v1/auth/email-code').send({ email: credentials.email }),
      await http().post('/api/v1/auth/email-code/verify').send({ token: 'nope' }),
      await http()
        .post('/api/v1/auth/email-code/verify')
        .send({ email: credentials.email, code: '000000' }),
      await http().post('/api/v1/auth/login').send({ email: 'x@example.com', password: 'wrong' }),
    ];
    // The registration above took the first of the five.
    expect(attempts.map((response) => response.status)).toEqual([200, 401, 401, 401]);
    expectError(
      await http().post('/api/v1/auth/email-code').send({ email: credentials.email }),
      429,
      'RATE_LIMITED',
    );
    expectError(
      await http().post('/api/v1/auth/email-code/verify').send({ token: 'nope' }),
      429,
      'RATE_LIMITED',
    );
    await http().get('/api/v1/auth/email-code/verify?token=x').expect(200);
  });
});
