import { AddressInfo, Server, Socket, createServer } from 'node:net';
import { Response } from 'supertest';
import { IsNull } from 'typeorm';
import { PasswordHasher } from '../src/auth/hashing/password-hasher.service';
import { RETRY_AFTER_SECONDS } from '../src/common/errors/error-codes';
import { VerificationToken } from '../src/tokens/verification-token.entity';
import { User } from '../src/users/user.entity';
import { cookiesOf, expectError, login, registerUser, uniqueUser } from './support/auth-helpers';
import { SmtpSink } from './support/mailbox';
import { APP_ORIGIN, TestApp, startTestApp } from './support/test-app';

const SHOP = 'https://www.acme-shop.example.com';
/** A mail that could not be sent: try again after this many seconds. */
const MAIL_RETRY_AFTER = String(RETRY_AFTER_SECONDS.EMAIL_SERVICE_ERROR);

describe('email flows through a real SMTP server', () => {
  let sink: SmtpSink;
  let t: TestApp;

  beforeAll(async () => {
    sink = await new SmtpSink().start();
    t = await startTestApp({
      SMTP_URL: sink.url,
      MAIL_FROM: 'accounts@auth.example.com',
      APP_ORIGINS: `http://localhost:5173,${SHOP}`,
      SMTP_TIMEOUT_MS: '2000',
    });
  });
  afterEach(() => {
    sink.refuse = undefined;
  });
  afterAll(async () => {
    await t.close();
    await sink.stop();
  });

  const post = (path: string, body: object) => t.http().post(`/api/v1${path}`).send(body);
  /** A refused link: 401 INVALID_TOKEN, and why, as `details` says it to the link's page. */
  const refusedLink = (response: Response, reason?: string) => {
    expectError(response, 401, 'INVALID_TOKEN');
    if (reason === undefined) expect(response.body.details).toBeUndefined();
    else {
      expect(response.body.details).toEqual([
        { field: 'token', message: response.body.message, reason },
      ]);
    }
  };
  const liveTokens = (userId: string, purpose: string) =>
    t.dataSource.getRepository(VerificationToken).countBy({
      userId,
      purpose: purpose as VerificationToken['purpose'],
      usedAt: IsNull(),
    });

  describe('verification', () => {
    it('mails a link on registration; the GET page does not use it; POST verifies once', async () => {
      const { credentials, user } = await registerUser(t, uniqueUser('Verify'));
      const mail = sink.last();
      expect(mail.to).toBe(credentials.email);
      expect(mail.from).toBe('accounts@auth.example.com');
      expect(mail.subject).toBe('Verify your email for Auth Service');
      expect(mail.link).toMatch(
        /^http:\/\/localhost:3000\/api\/v1\/auth\/verify-email\?token=[\w-]{43}$/,
      );
      expect(mail.html).toContain(`href="${mail.link}"`);
      expect(mail.text).toContain(`Hello ${credentials.username},`);
      expect(mail.text).toContain('valid for 24 hours');

      const page = await t
        .http()
        .get(new URL(mail.link).pathname + new URL(mail.link).search)
        .expect(200);
      expect(page.headers['content-type']).toMatch(/^text\/html/);
      expect(page.text).not.toContain(mail.token);
      expect(page.headers['content-security-policy']).toMatch(/script-src 'nonce-[\w+/=]+'/);

      const verified = await post('/auth/verify-email', { token: mail.token }).expect(200);
      expect(verified.body).toEqual({
        success: true,
        message: 'Email verified',
        data: {
          user: expect.objectContaining({
            id: user.id,
            email: credentials.email,
            email_verified: true,
            verified_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
          }),
        },
      });
      const again = await post('/auth/verify-email', { token: mail.token });
      refusedLink(again, 'verified');
      expect(again.body.message).toBe('The email address is already verified');
      const session = await login(t, credentials);
      expect(session.user).toMatchObject({ email_verified: true });
    });

    it('serves link pages that keep the token out of the HTML, caches, referrers and frames', async () => {
      for (const path of ['/api/v1/auth/verify-email', '/api/v1/auth/reset-password']) {
        const page = await t.http().get(`${path}?token=secret-token-value`).expect(200);
        expect(page.text).not.toContain('secret-token-value');
        expect(page.headers['cache-control']).toBe('no-store');
        expect(page.headers['referrer-policy']).toBe('no-referrer');
        const csp = page.headers['content-security-policy'];
        expect(csp).toContain("default-src 'none'");
        expect(csp).toContain("frame-ancestors 'none'");
        expect(csp).toContain("connect-src 'self'");
        // The button posts to the page's own path, which also works behind a path prefix.
        expect(page.text).toContain('window.location.pathname');
      }
    });

    it('answers two parallel uses of one verification token with exactly one success', async () => {
      await registerUser(t);
      const { token } = sink.last();
      const results = await Promise.all(
        Array.from({ length: 6 }, () => post('/auth/verify-email', { token })),
      );
      expect(results.map((response) => response.status).sort()).toEqual([
        200, 401, 401, 401, 401, 401,
      ]);
    });

    it('echoes an allowed applicationUrl in its normalised form and refuses credentials in it', async () => {
      await registerUser(t);
      const { token } = sink.last();
      const verified = await post('/auth/verify-email', {
        token,
        applicationUrl: 'HTTP://LOCALHOST:5173/next?step=2',
      }).expect(200);
      expect(verified.body.data.redirect_url).toBe('http://localhost:5173/next?step=2');

      const { credentials } = await registerUser(t);
      for (const applicationUrl of [
        'http://evil.example:pw@localhost:5173/verify',
        'https://evil.example.net/verify',
      ]) {
        expectError(
          await post('/auth/resend-verification-email', {
            email: credentials.email,
            applicationUrl,
          }),
          400,
          'VALIDATION_ERROR',
        );
      }
    });

    it('names the app after the applicationUrl and links there', async () => {
      await post('/auth/register', {
        ...uniqueUser(),
        emailConfig: { applicationUrl: `${SHOP}/welcome?from=mail`, locale: 'en' },
      }).expect(201);
      const mail = sink.last();
      expect(mail.subject).toBe('Verify your email for Acme Shop');
      expect(mail.link).toMatch(
        /^https:\/\/www\.acme-shop\.example\.com\/welcome\?from=mail&token=[\w-]{43}$/,
      );
      expect(mail.html).toContain('Acme Shop');
    });

    it('resends to an unverified account and refuses verified or unknown ones with 409', async () => {
      const { credentials } = await registerUser(t);
      const first = sink.last();
      await post('/auth/resend-verification-email', {
        email: credentials.email.toUpperCase(),
        applicationUrl: `${SHOP}/verify`,
      }).expect(200);
      const second = sink.last();
      expect(second.to).toBe(credentials.email);
      expect(second.link.startsWith(`${SHOP}/verify?token=`)).toBe(true);
      expect(second.token).not.toBe(first.token);
      await post('/auth/verify-email', { token: second.token }).expect(200);

      expectError(
        await post('/auth/resend-verification-email', { email: credentials.email }),
        409,
        'EMAIL_ALREADY_VERIFIED',
      );
      expectError(
        await post('/auth/resend-verification-email', { email: 'nobody@example.com' }),
        409,
        'EMAIL_ALREADY_VERIFIED',
      );
    });

    it('refuses an applicationUrl outside APP_ORIGINS and sends nothing', async () => {
      const { credentials } = await registerUser(t);
      const before = sink.received.length;
      const response = await post('/auth/resend-verification-email', {
        email: credentials.email,
        applicationUrl: 'https://evil.example.net/phish',
      });
      expectError(response, 400, 'VALIDATION_ERROR');
      expect(response.body.details).toEqual([expect.objectContaining({ field: 'applicationUrl' })]);
      expectError(
        await post('/auth/forgot-password', {
          email: credentials.email,
          applicationUrl: 'https://acme-shop.example.com.evil.example.net/',
        }),
        400,
        'VALIDATION_ERROR',
      );
      expect(sink.received.length).toBe(before);
    });

    it('refuses an expired verification token', async () => {
      const { user } = await registerUser(t);
      const mail = sink.last();
      await t.dataSource
        .getRepository(VerificationToken)
        .update({ userId: user.id }, { expiresAt: new Date(Date.now() - 1000) });
      const expired = await post('/auth/verify-email', { token: mail.token });
      refusedLink(expired, 'expired');
      expect(expired.body.message).toBe('The verification link has expired: ask for a new one');
    });

    it('says an address is verified already to any link of it, and an unknown token nothing more', async () => {
      const { credentials, user } = await registerUser(t);
      const older = sink.last();
      await post('/auth/resend-verification-email', { email: credentials.email }).expect(200);
      const newer = sink.last();
      // A resend keeps the older link working: it proves the same inbox.
      await post('/auth/verify-email', { token: older.token }).expect(200);
      refusedLink(await post('/auth/verify-email', { token: older.token }), 'verified');
      // Expired since: still what its owner needs to hear is that the address is verified.
      await t.dataSource
        .getRepository(VerificationToken)
        .update({ userId: user.id }, { expiresAt: new Date(Date.now() - 1000) });
      refusedLink(await post('/auth/verify-email', { token: newer.token }), 'verified');
      refusedLink(await post('/auth/verify-email', { token: 'x'.repeat(43) }));
    });
  });

  describe('password reset', () => {
    it('mails the stored address, sets the new password once, and ends every session', async () => {
      const { credentials, user } = await registerUser(t, uniqueUser('Reset'));
      const phone = await login(t, credentials);
      const laptop = await login(t, credentials);

      expectError(
        await post('/auth/forgot-password', { email: 'nobody@example.com' }),
        404,
        'USER_NOT_FOUND',
      );
      await post('/auth/forgot-password', { email: ` ${credentials.email.toUpperCase()} ` }).expect(
        200,
      );
      const mail = sink.last();
      expect(mail.to).toBe(credentials.email);
      expect(mail.subject).toBe('Reset your Auth Service password');
      expect(mail.link).toMatch(
        /^http:\/\/localhost:3000\/api\/v1\/auth\/reset-password\?token=[\w-]{43}$/,
      );
      expect(mail.text).toContain('valid for 1 hour');

      const reset = await post('/auth/reset-password', {
        token: mail.token,
        newPassword: 'brand-new-pass',
      });
      expect(reset.status).toBe(200);
      expect(reset.body).toEqual({ success: true, message: expect.stringContaining('reset') });
      expect(cookiesOf(reset).access_token.value).toBe('');

      const reused = await post('/auth/reset-password', {
        token: mail.token,
        newPassword: 'another-pass',
      });
      refusedLink(reused, 'used');
      expect(reused.body.message).toBe(
        'The reset link was already used, or a change to the account withdrew it',
      );
      expectError(
        await post('/auth/login', { email: credentials.email, password: credentials.password }),
        401,
        'LOGIN_FAILED',
      );
      await post('/auth/login', { email: credentials.email, password: 'brand-new-pass' }).expect(
        200,
      );

      for (const session of [phone, laptop]) {
        expectError(
          await t
            .http()
            .get('/api/v1/auth/verify-token')
            .set('Authorization', `Bearer ${session.access}`),
          401,
          'INVALID_TOKEN',
        );
        expectError(
          await t
            .http()
            .post('/api/v1/auth/refresh')
            .set('Cookie', `refresh_token=${session.refresh}`),
          401,
          'INVALID_TOKEN',
        );
      }
      const stored = await t.dataSource.getRepository(User).findOneByOrFail({ id: user.id });
      expect(stored.emailVerified).toBe(true);
    });

    it('tells the owner by mail that the password was reset, as a password change does', async () => {
      const { credentials } = await registerUser(t, uniqueUser('ResetNotice'));
      await post('/auth/forgot-password', { email: credentials.email.toUpperCase() }).expect(200);
      await t
        .http()
        .post('/api/v1/auth/reset-password')
        .set('Origin', APP_ORIGIN)
        .send({ token: sink.last().token, newPassword: 'noticed-new-pass' })
        .expect(200);
      const notice = sink.last();
      expect(notice.to).toBe(credentials.email);
      expect(notice.subject).toBe('Your Auth Service password was changed');
      expect(notice.text).toContain(`Hello ${credentials.username},`);
      expect(notice.text).toContain(`account (${credentials.email}) was changed on`);
      // A notice of a change already made: nothing in it logs anyone in.
      expect(notice.text).not.toMatch(/https?:/);
      expect(notice.html).not.toMatch(/href=/);
    });

    it('answers a reset with success and sets the password when the notice cannot be sent', async () => {
      const { credentials } = await registerUser(t, uniqueUser('ResetNoNotice'));
      await post('/auth/forgot-password', { email: credentials.email }).expect(200);
      const { token } = sink.last();
      const before = sink.received.length;
      sink.refuse = { responseCode: 550, message: 'Mailbox unavailable' };
      const reset = await post('/auth/reset-password', { token, newPassword: 'unnoticed-pass' });
      expect({ status: reset.status, body: reset.body }).toEqual({
        status: 200,
        body: { success: true, message: 'Password has been reset. Log in with the new password.' },
      });
      sink.refuse = undefined;
      expect(sink.received.length).toBe(before);
      await login(t, { email: credentials.email, password: 'unnoticed-pass' });
    });

    it('retires older reset links when a new one is sent', async () => {
      const { credentials } = await registerUser(t);
      await post('/auth/forgot-password', { email: credentials.email }).expect(200);
      const older = sink.last();
      await post('/auth/forgot-password', { email: credentials.email }).expect(200);
      const newer = sink.last();
      refusedLink(
        await post('/auth/reset-password', { token: older.token, newPassword: 'first-pass' }),
        'replaced',
      );
      await post('/auth/reset-password', { token: newer.token, newPassword: 'second-pass' }).expect(
        200,
      );
      // The newer one used, "use the latest email" would be untrue: the older one is spent.
      refusedLink(
        await post('/auth/reset-password', { token: older.token, newPassword: 'third-pass' }),
        'used',
      );
    });

    it('leaves exactly one working link after parallel reset requests', async () => {
      const { credentials, user } = await registerUser(t);
      const before = sink.received.length;
      const answers = await Promise.all(
        Array.from({ length: 5 }, () =>
          post('/auth/forgot-password', { email: credentials.email }),
        ),
      );
      expect(answers.map((response) => response.status)).toEqual([200, 200, 200, 200, 200]);
      expect(sink.received.length).toBe(before + 5);
      expect(await liveTokens(user.id, 'password_reset')).toBe(1);
      const tokens = sink.received.slice(before).map((mail) => mail.token);
      const uses = await Promise.all(
        tokens.map((token) =>
          post('/auth/reset-password', { token, newPassword: 'parallel-pass' }),
        ),
      );
      expect(uses.map((response) => response.status).sort()).toEqual([200, 401, 401, 401, 401]);
    });

    it('answers parallel uses of one reset token with exactly one success', async () => {
      const { credentials } = await registerUser(t);
      await post('/auth/forgot-password', { email: credentials.email }).expect(200);
      const { token } = sink.last();
      const uses = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          post('/auth/reset-password', { token, newPassword: `pass-${i}-x` }),
        ),
      );
      expect(uses.map((response) => response.status).sort()).toEqual([
        200, 401, 401, 401, 401, 401,
      ]);
    });

    it('gives no session to a login whose password was reset while it was being checked', async () => {
      const { credentials } = await registerUser(t);
      await post('/auth/forgot-password', { email: credentials.email }).expect(200);
      const { token } = sink.last();
      const hasher = t.app.get(PasswordHasher);
      const verify = hasher.verify.bind(hasher);
      // The real check runs; the reset commits right after it, before the session is created.
      const spy = jest.spyOn(hasher, 'verify').mockImplementationOnce(async (password, hash) => {
        const result = await verify(password, hash);
        await post('/auth/reset-password', { token, newPassword: 'reset-during-login' }).expect(
          200,
        );
        return result;
      });
      try {
        const raced = await post('/auth/login', {
          email: credentials.email,
          password: credentials.password,
        });
        expectError(raced, 401, 'LOGIN_FAILED');
        expect(raced.headers['set-cookie']).toBeUndefined();
      } finally {
        spy.mockRestore();
      }
      await post('/auth/login', {
        email: credentials.email,
        password: 'reset-during-login',
      }).expect(200);
    });

    it('refuses an expired reset token', async () => {
      const { credentials, user } = await registerUser(t);
      await post('/auth/forgot-password', { email: credentials.email }).expect(200);
      const mail = sink.last();
      await t.dataSource
        .getRepository(VerificationToken)
        .update(
          { userId: user.id, purpose: 'password_reset' },
          { expiresAt: new Date(Date.now() - 1000) },
        );
      refusedLink(
        await post('/auth/reset-password', { token: mail.token, newPassword: 'new-pass-1' }),
        'expired',
      );
    });

    it('keeps verification and reset tokens to their own purpose', async () => {
      const { credentials } = await registerUser(t);
      const verification = sink.last();
      await post('/auth/forgot-password', { email: credentials.email }).expect(200);
      const reset = sink.last();
      // Neither says why: to the other purpose, the token is one it never issued.
      refusedLink(
        await post('/auth/reset-password', {
          token: verification.token,
          newPassword: 'new-pass-1',
        }),
      );
      refusedLink(await post('/auth/verify-email', { token: reset.token }));
    });

    it('chooses the reset-password variant by body shape and refuses any other shape', async () => {
      const { credentials } = await registerUser(t);
      await post('/auth/reset-password', { email: credentials.email }).expect(200);
      const mail = sink.last();
      expect(mail.subject).toMatch(/^Reset your/);
      for (const body of [
        { email: credentials.email, token: mail.token },
        { token: mail.token },
        { email: credentials.email, applicationUrl: `${SHOP}/reset` },
        {},
      ]) {
        expectError(await post('/auth/reset-password', body), 400, 'VALIDATION_ERROR');
      }
      const short = await post('/auth/reset-password', { token: mail.token, newPassword: '12345' });
      expectError(short, 400, 'VALIDATION_ERROR');
      expect(short.body.details).toEqual([expect.objectContaining({ field: 'newPassword' })]);
      expectError(
        await post('/auth/reset-password', { email: 'nobody@example.com' }),
        404,
        'USER_NOT_FOUND',
      );
      expectError(
        await post('/auth/reset-password', { token: '', newPassword: 'new-pass-1' }),
        400,
        'VALIDATION_ERROR',
      );
      // The short password did not use the token up.
      await post('/auth/reset-password', { token: mail.token, newPassword: 'new-pass-1' }).expect(
        200,
      );
    });
  });

  describe('a new password that is easy to guess', () => {
    /** The reset link of a fresh account, and what it is registered with. */
    const resetLink = async () => {
      const { credentials } = await registerUser(t, uniqueUser('Guessable'));
      await post('/auth/forgot-password', { email: credentials.email }).expect(200);
      return { credentials, token: sink.last().token };
    };
    const expectRefused = (response: Response, password: string, reason: RegExp) => {
      expectError(response, 400, 'VALIDATION_ERROR');
      expect(response.body.details).toEqual([
        { field: 'newPassword', message: expect.any(String) },
      ]);
      expect(response.body.details[0].message).toMatch(reason);
      expect(JSON.stringify(response.body).toLowerCase()).not.toContain(password.toLowerCase());
    };

    it('refuses a common password in any case, and leaves the link usable', async () => {
      const { credentials, token } = await resetLink();
      for (const newPassword of ['password1', 'LetMeIn123', 'QWERTYUIOP', '1q2w3e4r']) {
        expectRefused(
          await post('/auth/reset-password', { token, newPassword }),
          newPassword,
          /too common/,
        );
      }
      await post('/auth/reset-password', { token, newPassword: 'a-Better-pass-9' }).expect(200);
      await login(t, { email: credentials.email, password: 'a-Better-pass-9' });
    });

    it('refuses the account’s email, its local part and its username, in any case', async () => {
      const { credentials, token } = await resetLink();
      const localPart = credentials.email.split('@')[0];
      for (const newPassword of [
        credentials.email.toUpperCase(),
        localPart,
        credentials.username.toLowerCase(),
        credentials.username.toUpperCase(),
      ]) {
        expectRefused(
          await post('/auth/reset-password', { token, newPassword }),
          newPassword,
          /email address.*username/,
        );
      }
      // The old password still logs in: nothing was changed, and the link still works.
      await login(t, credentials);
      await post('/auth/reset-password', { token, newPassword: `${localPart}-x7!` }).expect(200);
    });

    it('still answers an unknown token 401 before judging the password', async () => {
      const { credentials } = await resetLink();
      expectError(
        await post('/auth/reset-password', {
          token: 'not-a-real-token',
          newPassword: credentials.username,
        }),
        401,
        'INVALID_TOKEN',
      );
    });

    it('still refuses a new password over 72 bytes as too long', async () => {
      const { token } = await resetLink();
      const response = await post('/auth/reset-password', {
        token,
        newPassword: 'ü'.repeat(37),
      });
      expectError(response, 400, 'VALIDATION_ERROR');
      expect(response.body.details).toEqual([
        { field: 'newPassword', message: 'newPassword must be at most 72 bytes long' },
      ]);
    });
  });

  it('answers every /email alias with the same handler', async () => {
    const { credentials } = await registerUser(t);
    await post('/email/resend-verification-email', { email: credentials.email }).expect(200);
    await post('/email/verify-email', { token: sink.last().token }).expect(200);
    expectError(await post('/email/verify', { token: sink.last().token }), 401, 'INVALID_TOKEN');
    const other = await registerUser(t);
    await post('/email/verify', { token: sink.last().token }).expect(200);

    await post('/email/forgot-password', { email: credentials.email }).expect(200);
    await post('/email/reset-password', {
      token: sink.last().token,
      newPassword: 'alias-pass-1',
    }).expect(200);
    await post('/email/reset', { email: other.credentials.email }).expect(200);
    await post('/email/reset', { token: sink.last().token, newPassword: 'alias-pass-2' }).expect(
      200,
    );
    await post('/auth/login', { email: other.credentials.email, password: 'alias-pass-2' }).expect(
      200,
    );
  });

  describe('when the SMTP server refuses', () => {
    it.each([
      [550, 'Mailbox unavailable'],
      [451, 'Try again later'],
    ])(
      'answers %i with 503 EMAIL_SERVICE_ERROR and leaves no usable token',
      async (code, message) => {
        const { credentials, user } = await registerUser(t);
        sink.refuse = { responseCode: code, message };
        for (const refused of [
          await post('/auth/forgot-password', { email: credentials.email }),
          await post('/auth/resend-verification-email', { email: credentials.email }),
        ]) {
          expectError(refused, 503, 'EMAIL_SERVICE_ERROR');
          // The mail server may take mail again later: the client is told when to try.
          expect(refused.headers['retry-after']).toBe(MAIL_RETRY_AFTER);
        }
        expect(await liveTokens(user.id, 'password_reset')).toBe(0);
        expect(await liveTokens(user.id, 'email_verification')).toBe(1);

        sink.refuse = undefined;
        await post('/auth/forgot-password', { email: credentials.email }).expect(200);
        await post('/auth/reset-password', {
          token: sink.last().token,
          newPassword: 'after-outage',
        }).expect(200);
      },
    );

    it('still creates the account at registration, says the email is on its way, and resend works', async () => {
      sink.refuse = { responseCode: 554, message: 'Rejected' };
      const credentials = uniqueUser();
      const response = await post('/auth/register', credentials).expect(201);
      expect(response.body.message).toMatch(/on its way/);
      sink.refuse = undefined;
      await post('/auth/resend-verification-email', { email: credentials.email }).expect(200);
      await post('/auth/verify-email', { token: sink.last().token }).expect(200);
    });
  });
});

describe('email flows when the SMTP server cannot be reached', () => {
  let silent: Server;
  const sockets = new Set<Socket>();
  let closedPort: number;
  const apps: TestApp[] = [];

  beforeAll(async () => {
    // A port nobody listens on, and a server that accepts and never says a word.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    closedPort = (probe.address() as AddressInfo).port;
    await new Promise((resolve) => probe.close(resolve));
    silent = createServer((socket) => sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    await Promise.all(apps.map((app) => app.close()));
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => silent.close(resolve));
  });

  it.each([
    ['refused connection', () => `smtp://127.0.0.1:${closedPort}`],
    ['silent server', () => `smtp://127.0.0.1:${(silent.address() as AddressInfo).port}`],
  ])('answers 503 EMAIL_SERVICE_ERROR for a %s instead of hanging', async (_label, url) => {
    const t = await startTestApp({ SMTP_URL: url(), SMTP_TIMEOUT_MS: '300' });
    apps.push(t);
    const credentials = uniqueUser();
    await t.http().post('/api/v1/auth/register').send(credentials).expect(201);
    const refused = await t
      .http()
      .post('/api/v1/auth/forgot-password')
      .send({ email: credentials.email });
    expectError(refused, 503, 'EMAIL_SERVICE_ERROR');
    expect(refused.headers['retry-after']).toBe(MAIL_RETRY_AFTER);
  });
});

describe('the development outbox, as a newcomer uses it', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('registers, verifies from the .eml, resets the password from the .eml and logs in', async () => {
    const credentials = uniqueUser('Newcomer');
    await t.http().post('/api/v1/auth/register').send(credentials).expect(201);
    const verification = (await t.outbox()).find((mail) => mail.to === credentials.email)!;
    expect(verification.subject).toBe('Verify your email for Auth Service');
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
    expect(reset.subject).toBe('Reset your Auth Service password');
    await t
      .http()
      .post('/api/v1/auth/reset-password')
      .send({ token: reset.token, newPassword: 'newcomer-new-pass' })
      .expect(200);
    const session = await login(t, { email: credentials.email, password: 'newcomer-new-pass' });
    expect(session.user).toMatchObject({ email_verified: true });
  });
});
