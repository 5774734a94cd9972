import { IsNull } from 'typeorm';
import { AuditEvent } from '../src/audit/audit-event.entity';
import { VerificationToken } from '../src/tokens/verification-token.entity';
import { User } from '../src/users/user.entity';
import {
  LoggedIn,
  PASSWORD,
  cookiesOf,
  expectError,
  login,
  refreshWith,
  registerAndLogin,
  uniqueUser,
} from './support/auth-helpers';
import { SmtpSink } from './support/mailbox';
import { APP_ORIGIN, TestApp, startTestApp } from './support/test-app';

const SHOP = 'https://www.acme-shop.example.com';
const FOREIGN_ORIGIN = 'https://evil.example.net';
const NEW_PASSWORD = 'a brand new secret';

/**
 * The account part of user management (issue 17), through HTTP on the real service and a real
 * SMTP server: profile changes, password change, email change.
 */
describe('the signed-in user’s account', () => {
  let sink: SmtpSink;
  let t: TestApp;

  beforeAll(async () => {
    sink = await new SmtpSink().start();
    t = await startTestApp({
      SMTP_URL: sink.url,
      MAIL_FROM: 'accounts@auth.example.com',
      APP_ORIGINS: `${APP_ORIGIN},${SHOP}`,
      SMTP_TIMEOUT_MS: '2000',
      // Three wrong passwords, then a minute's wait: long enough that no test outruns it.
      LOGIN_FAILURES_FREE: '3',
      LOGIN_BACKOFF_BASE: '60',
    });
  });
  afterEach(() => {
    sink.refuse = undefined;
  });
  afterAll(async () => {
    await t?.close();
    await sink?.stop();
  });

  const bearer = (access: string) => ({ Authorization: `Bearer ${access}` });
  const me = (access: string) => t.http().get('/api/v1/users/me').set(bearer(access));
  const patchMe = (access: string, body: unknown) =>
    t
      .http()
      .patch('/api/v1/users/me')
      .set(bearer(access))
      .send(body as object);
  const changePassword = (access: string, body: object) =>
    t.http().post('/api/v1/users/me/password').set(bearer(access)).send(body);
  const requestEmailChange = (access: string, body: object) =>
    t.http().post('/api/v1/users/me/email').set(bearer(access)).send(body);
  const confirm = (token: string) =>
    t.http().post('/api/v1/users/me/email/confirm').send({ token });
  const events = async (userId: string) =>
    (
      await t.dataSource
        .getRepository(AuditEvent)
        .find({ where: { userId }, order: { createdAt: 'ASC' } })
    ).map((event) => event.type);
  const stored = (id: string) => t.dataSource.getRepository(User).findOneByOrFail({ id });
  const mailsTo = (address: string) => sink.to(address);

  describe('PATCH /users/me', () => {
    it('sets name, picture and username, answers the profile and moves updated_at', async () => {
      const session = await registerAndLogin(t);
      const before = (await me(session.access).expect(200)).body.data.user;
      await new Promise((resolve) => setTimeout(resolve, 20));
      const renamed = `${session.credentials.username}R`;

      const response = await patchMe(session.access, {
        name: '  Jose\u0301 Lee  ',
        picture: 'https://CDN.example.com/ann.png',
        username: ` ${renamed} `,
      }).expect(200);

      expect(response.body).toEqual({
        success: true,
        message: 'Profile updated',
        data: {
          user: {
            ...before,
            name: 'José Lee',
            picture: 'https://cdn.example.com/ann.png',
            username: renamed,
            updated_at: expect.any(String),
          },
        },
      });
      const after = response.body.data.user;
      expect(Date.parse(after.updated_at)).toBeGreaterThan(Date.parse(before.updated_at));
      expect((await me(session.access).expect(200)).body.data.user).toEqual(after);
      expect(await events(session.user.id)).toContain('profile_updated');
    });

    it('shows the new fields wherever the user is returned', async () => {
      const session = await registerAndLogin(t);
      await patchMe(session.access, { name: 'Ann', picture: 'https://cdn.example.com/a.png' });
      const fields = { name: 'Ann', picture: 'https://cdn.example.com/a.png' };

      const verify = await t
        .http()
        .get('/api/v1/auth/verify-token')
        .set(bearer(session.access))
        .expect(200);
      expect(verify.body.data.user).toMatchObject({ ...fields, updated_at: expect.any(String) });
      const cookieLogin = await t
        .http()
        .post('/api/v1/auth/login')
        .send({ email: session.credentials.email, password: PASSWORD })
        .expect(200);
      expect(cookieLogin.body.data.user).toMatchObject(fields);
      const bodyLogin = await t
        .http()
        .post('/api/v1/auth/login')
        .set('X-Token-Delivery', 'body')
        .send({ email: session.credentials.email, password: PASSWORD })
        .expect(200);
      expect(bodyLogin.body.user).toMatchObject(fields);
      const refreshed = await refreshWith(t, cookiesOf(cookieLogin).refresh_token.value).expect(
        200,
      );
      expect(refreshed.body.data.user).toMatchObject(fields);
    });

    it('clears name and picture with null (or an empty name); the token shape falls back to the username', async () => {
      const session = await registerAndLogin(t);
      await patchMe(session.access, { name: 'Ann', picture: 'https://cdn.example.com/a.png' });

      const cleared = await patchMe(session.access, { name: '   ', picture: null }).expect(200);
      expect(cleared.body.data.user).toMatchObject({ name: null, picture: null });
      await patchMe(session.access, { name: 'Ann' }).expect(200);
      const nulled = await patchMe(session.access, { name: null }).expect(200);
      expect(nulled.body.data.user).toMatchObject({
        name: null,
        username: session.credentials.username,
      });

      const bodyLogin = await t
        .http()
        .post('/api/v1/auth/login')
        .set('X-Token-Delivery', 'body')
        .send({ email: session.credentials.email, password: PASSWORD })
        .expect(200);
      expect(bodyLogin.body.user).toMatchObject({
        name: session.credentials.username,
        picture: null,
      });
    });

    it('lets a user change the case of their own username', async () => {
      const session = await registerAndLogin(t);
      const upper = session.credentials.username.toUpperCase();
      const response = await patchMe(session.access, { username: upper }).expect(200);
      expect(response.body.data.user.username).toBe(upper);
    });

    it('keeps fields that are absent', async () => {
      const session = await registerAndLogin(t);
      await patchMe(session.access, { name: 'Ann', picture: 'https://cdn.example.com/a.png' });
      const response = await patchMe(session.access, { name: 'Bea' }).expect(200);
      expect(response.body.data.user).toMatchObject({
        name: 'Bea',
        picture: 'https://cdn.example.com/a.png',
        username: session.credentials.username,
      });
    });

    it('refuses an empty body and unknown fields with a clear 400', async () => {
      const session = await registerAndLogin(t);
      const empty = await patchMe(session.access, {});
      expectError(empty, 400, 'VALIDATION_ERROR');
      expect(empty.body.message).toMatch(/username, name or picture/);
      const unknown = await patchMe(session.access, { name: 'Ann', role: 'admin' });
      expectError(unknown, 400, 'VALIDATION_ERROR');
      expect(JSON.stringify(unknown.body.details)).toContain('role');
      expectError(await patchMe(session.access, ['name']), 400, 'VALIDATION_ERROR');
      expect((await stored(session.user.id)).role).toBe('user');
      expect((await stored(session.user.id)).name).toBeNull();
    });

    it.each([
      ['a null username', { username: null }, 'username'],
      ['a short username', { username: 'ab' }, 'username'],
      ['a username with spaces', { username: 'a b c' }, 'username'],
      ['a name of 101 characters', { name: 'n'.repeat(101) }, 'name'],
      ['a name with a line break', { name: 'Ann\nBcc: x@example.com' }, 'name'],
      ['a numeric name', { name: 42 }, 'name'],
      ['an http picture', { picture: 'http://cdn.example.com/a.png' }, 'picture'],
      ['a javascript: picture', { picture: 'javascript:alert(1)' }, 'picture'],
      ['a data: picture', { picture: 'data:image/png;base64,AAAA' }, 'picture'],
      ['a picture with credentials', { picture: 'https://u:p@cdn.example.com/a.png' }, 'picture'],
      ['a relative picture', { picture: '/a.png' }, 'picture'],
      [
        'a picture of 2049 characters',
        { picture: `https://cdn.example.com/${'a'.repeat(2049 - 24)}` },
        'picture',
      ],
      ['a numeric picture', { picture: 7 }, 'picture'],
    ])('refuses %s with 400 naming the field, changing nothing', async (_label, body, field) => {
      const session = await registerAndLogin(t);
      const before = await stored(session.user.id);
      const response = await patchMe(session.access, body);
      expectError(response, 400, 'VALIDATION_ERROR');
      expect(response.body.details).toEqual(
        expect.arrayContaining([expect.objectContaining({ field })]),
      );
      expect(await stored(session.user.id)).toEqual(before);
    });

    it('accepts a picture of exactly 2048 characters and a name of 100 characters', async () => {
      const session = await registerAndLogin(t);
      const picture = `https://cdn.example.com/${'a'.repeat(2048 - 24)}`;
      const name = '名'.repeat(100);
      const response = await patchMe(session.access, { picture, name }).expect(200);
      expect(response.body.data.user).toMatchObject({ picture, name });
      expect(await stored(session.user.id)).toMatchObject({ picture, name });
    });

    it('answers a taken username (in any case) 409 REGISTRATION_FAILED and changes nothing', async () => {
      const session = await registerAndLogin(t);
      const other = await registerAndLogin(t);
      const before = await stored(session.user.id);

      const response = await patchMe(session.access, {
        username: other.credentials.username.toUpperCase(),
        name: 'Should not stick',
      });
      expectError(response, 409, 'REGISTRATION_FAILED');
      expect(response.body.message).toBe('This username is already taken');
      // The field is named, so a form marks it without reading the message.
      expect(response.body.details).toEqual([
        { field: 'username', message: 'This username is already taken' },
      ]);
      expect(await stored(session.user.id)).toEqual(before);
      expect(await events(session.user.id)).not.toContain('profile_updated');
    });

    it('takes the cookie from an allowed origin and refuses a foreign one or no token', async () => {
      const session = await registerAndLogin(t);
      const cookie = `access_token=${session.access}`;
      await t
        .http()
        .patch('/api/v1/users/me')
        .set('Origin', APP_ORIGIN)
        .set('Cookie', cookie)
        .send({ name: 'By cookie' })
        .expect(200);
      const foreign = await t
        .http()
        .patch('/api/v1/users/me')
        .set('Origin', FOREIGN_ORIGIN)
        .set('Cookie', cookie)
        .send({ name: 'Forged' });
      expectError(foreign, 403, 'FORBIDDEN_ORIGIN');
      expectError(
        await t.http().patch('/api/v1/users/me').send({ name: 'Anyone' }),
        401,
        'INVALID_TOKEN',
      );
      expect((await stored(session.user.id)).name).toBe('By cookie');
    });
  });

  describe('POST /users/me/password', () => {
    it('refuses a wrong current password with 403 INVALID_PASSWORD and changes nothing', async () => {
      const session = await registerAndLogin(t);
      const response = await changePassword(session.access, {
        currentPassword: 'not the password',
        newPassword: NEW_PASSWORD,
      });
      expectError(response, 403, 'INVALID_PASSWORD');
      expect(response.body.message).toBe('The current password is wrong');
      expect(response.headers['set-cookie']).toBeUndefined();
      await me(session.access).expect(200);
      await login(t, session.credentials);
      expect(mailsTo(session.credentials.email).map((mail) => mail.subject)).not.toContain(
        'Your Auth Service password was changed',
      );
    });

    it('counts wrong current passwords with wrong logins: then even the right one waits (429)', async () => {
      const session = await registerAndLogin(t);
      const wrong = { currentPassword: 'not the password', newPassword: NEW_PASSWORD };
      expectError(await changePassword(session.access, wrong), 403, 'INVALID_PASSWORD');
      expectError(
        await requestEmailChange(session.access, {
          password: 'not the password',
          newEmail: uniqueUser('Guess').email,
        }),
        403,
        'INVALID_PASSWORD',
      );
      expectError(
        await t
          .http()
          .post('/api/v1/auth/login')
          .send({ email: session.credentials.email, password: 'not the password' }),
        401,
        'LOGIN_FAILED',
      );

      const waiting = await changePassword(session.access, {
        currentPassword: PASSWORD,
        newPassword: NEW_PASSWORD,
      });
      expectError(waiting, 429, 'RATE_LIMITED');
      expect(Number(waiting.headers['retry-after'])).toBeGreaterThan(50);
      expectError(
        await t
          .http()
          .post('/api/v1/auth/login')
          .send({ email: session.credentials.email, password: PASSWORD }),
        429,
        'RATE_LIMITED',
      );
      // Nothing changed meanwhile: the session works, the password is the old one.
      await me(session.access).expect(200);
      expect(await events(session.user.id)).not.toContain('password_changed');
    });

    it.each([
      ['a short new password', { newPassword: 'abc' }, 'newPassword'],
      ['a common new password', { newPassword: 'password123' }, 'newPassword'],
      ['a new password over 72 bytes', { newPassword: 'é'.repeat(37) }, 'newPassword'],
      ['no current password', { currentPassword: undefined }, 'currentPassword'],
      ['an empty current password', { currentPassword: '' }, 'currentPassword'],
      ['an unknown field', { extra: 1 }, 'extra'],
    ])('refuses %s with 400', async (_label, change, field) => {
      const session = await registerAndLogin(t);
      const response = await changePassword(session.access, {
        currentPassword: PASSWORD,
        newPassword: NEW_PASSWORD,
        ...change,
      });
      expectError(response, 400, 'VALIDATION_ERROR');
      expect(response.body.details).toEqual(
        expect.arrayContaining([expect.objectContaining({ field })]),
      );
      await me(session.access).expect(200);
    });

    it('refuses the account’s own email, its local part or its username as the new password', async () => {
      const session = await registerAndLogin(t);
      const { email, username } = session.credentials;
      for (const newPassword of [email.toUpperCase(), email.split('@')[0], username]) {
        const response = await changePassword(session.access, {
          currentPassword: PASSWORD,
          newPassword,
        });
        expectError(response, 400, 'VALIDATION_ERROR');
        expect(response.body.details).toEqual([expect.objectContaining({ field: 'newPassword' })]);
      }
      await login(t, session.credentials);
    });

    it('with cookies: ends every other session, keeps the caller signed in with new cookies, mails a notice', async () => {
      const caller = await registerAndLogin(t);
      const other = await login(t, caller.credentials);
      const outbox = sink.received.length;

      const response = await t
        .http()
        .post('/api/v1/users/me/password')
        .set('Origin', APP_ORIGIN)
        .set('Cookie', `access_token=${caller.access}`)
        .set('User-Agent', 'account-suite')
        .send({ currentPassword: PASSWORD, newPassword: NEW_PASSWORD })
        .expect(200);

      expect(response.body).toEqual({
        success: true,
        message: 'Password changed. Other sessions have been signed out.',
        data: { user: expect.objectContaining({ id: caller.user.id }), expires_in: 900 },
      });
      const cookies = cookiesOf(response);
      expect(cookies.access_token.raw).toMatch(/HttpOnly/);
      expect(cookies.refresh_token.raw).toMatch(/Path=\/api\/v1\/auth/);
      const fresh = { access: cookies.access_token.value, refresh: cookies.refresh_token.value };

      // The caller goes on with what the answer gave it.
      await t
        .http()
        .get('/api/v1/users/me')
        .set('Cookie', `access_token=${fresh.access}`)
        .expect(200);
      // Everything issued before is refused: the other device and the caller's old tokens.
      expectError(await me(other.access), 401, 'INVALID_TOKEN');
      expectError(await me(caller.access), 401, 'INVALID_TOKEN');
      expectError(await refreshWith(t, other.refresh), 401, 'INVALID_TOKEN');
      expectError(await refreshWith(t, caller.refresh), 401, 'INVALID_TOKEN');
      const renewed = await refreshWith(t, fresh.refresh).expect(200);
      await me(cookiesOf(renewed).access_token.value).expect(200);

      // Only the new password logs in.
      expectError(
        await t.http().post('/api/v1/auth/login').send({
          email: caller.credentials.email,
          password: PASSWORD,
        }),
        401,
        'LOGIN_FAILED',
      );
      await login(t, { email: caller.credentials.email, password: NEW_PASSWORD });

      const notices = sink.received.slice(outbox);
      expect(notices).toHaveLength(1);
      const [notice] = notices;
      expect(notice.to).toBe(caller.credentials.email);
      expect(notice.subject).toBe('Your Auth Service password was changed');
      expect(notice.text).toMatch(/was changed on \d{4}-\d\d-\d\d \d\d:\d\d UTC/);
      expect(notice.text).toMatch(/from the address \S*127\.0\.0\.1|from the address ::1/);
      // Nothing in it logs anyone in: no link at all.
      expect(notice.link).toBe('');
      expect(notice.html).not.toMatch(/<a\s/);
      expect(notice.html).not.toContain('copy this link');
      expect(await events(caller.user.id)).toContain('password_changed');
      const audit = await t.dataSource
        .getRepository(AuditEvent)
        .findOneByOrFail({ userId: caller.user.id, type: 'password_changed' });
      expect(audit.userAgent).toBe('account-suite');
    });

    it('with X-Token-Delivery: body: answers the token response to a bearer caller, no cookies', async () => {
      const caller = await registerAndLogin(t);
      const response = await changePassword(caller.access, {
        currentPassword: PASSWORD,
        newPassword: NEW_PASSWORD,
      })
        .set('X-Token-Delivery', 'body')
        .expect(200);

      expect(response.body).toEqual({
        access_token: expect.any(String),
        refresh_token: expect.any(String),
        token_type: 'Bearer',
        expires_in: 900,
        user: expect.objectContaining({ id: caller.user.id, name: caller.credentials.username }),
      });
      expect(response.headers['set-cookie']).toBeUndefined();
      expect(response.headers['cache-control']).toBe('no-store');
      await me(response.body.access_token).expect(200);
      expectError(await me(caller.access), 401, 'INVALID_TOKEN');
      await refreshWith(t, response.body.refresh_token).expect(200);
    });

    it('lets one of two parallel changes with the same current password through', async () => {
      const caller = await registerAndLogin(t);
      const responses = await Promise.all(
        ['first new secret', 'second new secret'].map((newPassword) =>
          changePassword(caller.access, { currentPassword: PASSWORD, newPassword }),
        ),
      );
      const statuses = responses.map((response) => response.status).sort();
      expect(statuses).toEqual([200, 403]);
      const loser = responses.find((response) => response.status === 403)!;
      expectError(loser, 403, 'INVALID_PASSWORD');
      const winner = responses.indexOf(responses.find((response) => response.status === 200)!);
      await login(t, {
        email: caller.credentials.email,
        password: ['first new secret', 'second new secret'][winner],
      });
    });

    it('without X-Token-Delivery: answers a bearer caller with cookies, as login does', async () => {
      const caller = await registerAndLogin(t);
      const response = await changePassword(caller.access, {
        currentPassword: PASSWORD,
        newPassword: NEW_PASSWORD,
      }).expect(200);
      expect(response.body.success).toBe(true);
      const cookies = cookiesOf(response);
      expectError(await me(caller.access), 401, 'INVALID_TOKEN');
      await me(cookies.access_token.value).expect(200);
    });

    it('retires reset links and email changes asked for before the change', async () => {
      const caller = await registerAndLogin(t);
      await t
        .http()
        .post('/api/v1/auth/forgot-password')
        .send({ email: caller.credentials.email })
        .expect(200);
      const reset = sink.last();
      expect(reset.to).toBe(caller.credentials.email);
      const elsewhere = uniqueUser('Elsewhere').email;
      await requestEmailChange(caller.access, { password: PASSWORD, newEmail: elsewhere }).expect(
        200,
      );
      const change = mailsTo(elsewhere).at(-1)!;
      await changePassword(caller.access, {
        currentPassword: PASSWORD,
        newPassword: NEW_PASSWORD,
      }).expect(200);
      expectError(
        await t
          .http()
          .post('/api/v1/auth/reset-password')
          .send({ token: reset.token, newPassword: 'set back by a link' }),
        401,
        'INVALID_TOKEN',
      );
      expectError(await confirm(change.token), 401, 'INVALID_TOKEN');
      expect((await stored(caller.user.id)).email).toBe(caller.credentials.email);
      await login(t, { email: caller.credentials.email, password: NEW_PASSWORD });
    });

    it('is made even when the notice cannot be sent', async () => {
      const caller = await registerAndLogin(t);
      sink.refuse = { responseCode: 550, message: 'mailbox unavailable' };
      await changePassword(caller.access, {
        currentPassword: PASSWORD,
        newPassword: NEW_PASSWORD,
      }).expect(200);
      sink.refuse = undefined;
      await login(t, { email: caller.credentials.email, password: NEW_PASSWORD });
    });

    it('refuses a foreign origin with the cookie, and no token at all', async () => {
      const caller = await registerAndLogin(t);
      const body = { currentPassword: PASSWORD, newPassword: NEW_PASSWORD };
      expectError(
        await t
          .http()
          .post('/api/v1/users/me/password')
          .set('Origin', FOREIGN_ORIGIN)
          .set('Cookie', `access_token=${caller.access}`)
          .send(body),
        403,
        'FORBIDDEN_ORIGIN',
      );
      expectError(
        await t.http().post('/api/v1/users/me/password').send(body),
        401,
        'INVALID_TOKEN',
      );
      await login(t, caller.credentials);
    });
  });

  describe('changing the email address', () => {
    /** Asks for the change and returns the mail that went to the new address. */
    const requestChange = async (session: LoggedIn, newEmail: string, extra: object = {}) => {
      await requestEmailChange(session.access, {
        password: PASSWORD,
        newEmail,
        ...extra,
      }).expect(200);
      // The newest to the new address: the current one is told after it.
      const mail = mailsTo(newEmail).at(-1)!;
      expect(mail.subject).toMatch(/^Confirm your new email address/);
      return mail;
    };
    const liveChangeTokens = (userId: string) =>
      t.dataSource
        .getRepository(VerificationToken)
        .countBy({ userId, purpose: 'email_change', usedAt: IsNull() });

    it('mails a single-use link to the new address; confirming moves the account and tells the old one', async () => {
      const session = await registerAndLogin(t);
      const oldEmail = session.credentials.email;
      const newEmail = uniqueUser('Moved').email;

      const asked = await requestEmailChange(session.access, {
        password: PASSWORD,
        newEmail: ` ${newEmail} `,
      }).expect(200);
      expect(asked.body).toEqual({
        success: true,
        message: 'Check the new address: the change is made once its link is opened.',
      });
      const mail = mailsTo(newEmail).at(-1)!;
      expect(mail.subject).toBe('Confirm your new email address for Auth Service');
      expect(mail.link).toMatch(
        /^http:\/\/localhost:3000\/api\/v1\/users\/me\/email\/confirm\?token=[\w-]{43}$/,
      );
      expect(mail.html).toContain(`href="${mail.link}"`);
      expect(mail.text).toContain('valid for 1 hour');
      expect(mailsTo(oldEmail).map((m) => m.subject)).not.toContain(mail.subject);
      // The current address hears of it at once, while nothing has changed yet.
      const asking = mailsTo(oldEmail).at(-1)!;
      expect(asking.subject).toBe(
        'Someone asked to change the email address of your Auth Service account',
      );
      expect(asking.text).toContain(`to move it from ${oldEmail} to ${newEmail}`);
      expect(asking.text).toContain('Nothing has changed yet');
      expect(asking.text).toMatch(/\d{4}-\d\d-\d\d \d\d:\d\d UTC/);
      expect(asking.link).toBe('');
      expect(asking.html).not.toMatch(/<a\s/);
      // Nothing changes until the link is used.
      expect((await stored(session.user.id)).email).toBe(oldEmail);
      await login(t, session.credentials);

      // Opening the page uses nothing up.
      const page = await t
        .http()
        .get(new URL(mail.link).pathname + new URL(mail.link).search)
        .expect(200);
      expect(page.headers['content-type']).toMatch(/^text\/html/);
      expect(page.headers['cache-control']).toBe('no-store');
      expect(page.text).not.toContain(mail.token);
      expect(page.text).toContain('Confirm my new email');
      expect(page.headers['content-security-policy']).toMatch(/script-src 'nonce-[^']+'/);
      expect(page.headers['referrer-policy']).toBe('no-referrer');

      const confirmed = await confirm(mail.token).expect(200);
      expect(confirmed.body).toEqual({
        success: true,
        message: 'Email changed',
        data: {
          user: expect.objectContaining({
            id: session.user.id,
            email: newEmail,
            email_verified: true,
          }),
        },
      });
      const again = await confirm(mail.token);
      expectError(again, 401, 'INVALID_TOKEN');
      expect(again.body.details).toEqual([
        {
          field: 'token',
          reason: 'used',
          message: 'The email-change link was already used, or a change to the account withdrew it',
        },
      ]);

      // The session stays, and sees the new address at once.
      expect((await me(session.access).expect(200)).body.data.user).toMatchObject({
        email: newEmail,
        email_verified: true,
      });
      await login(t, { email: newEmail.toUpperCase(), password: PASSWORD });
      expectError(
        await t.http().post('/api/v1/auth/login').send({ email: oldEmail, password: PASSWORD }),
        401,
        'LOGIN_FAILED',
      );

      const notice = mailsTo(oldEmail).at(-1)!;
      expect(notice.subject).toBe('The email address of your Auth Service account was changed');
      expect(notice.text).toContain(`from ${oldEmail} to ${newEmail}`);
      expect(notice.text).toMatch(/\d{4}-\d\d-\d\d \d\d:\d\d UTC/);
      // Its one link undoes the change, on the service's own page (checked below).
      expect(notice.link).toMatch(
        /^http:\/\/localhost:3000\/api\/v1\/users\/me\/email\/undo\?token=[\w-]{43}$/,
      );
      expect(notice.html).toContain(`href="${notice.link}"`);
      expect(notice.text).toContain('valid for 1 hour and works once');
      expect(await events(session.user.id)).toEqual(
        expect.arrayContaining(['email_change_requested', 'email_changed']),
      );
    });

    it('links to the application when applicationUrl names an allowed origin', async () => {
      const session = await registerAndLogin(t);
      const newEmail = uniqueUser('App').email;
      const mail = await requestChange(session, newEmail, {
        applicationUrl: `${SHOP}/account/email?from=mail`,
      });
      expect(mail.link).toMatch(
        /^https:\/\/www\.acme-shop\.example\.com\/account\/email\?from=mail&token=[\w-]{43}$/,
      );
      expect(mail.subject).toBe('Confirm your new email address for Acme Shop');
      await confirm(mail.token).expect(200);
    });

    it('refuses a wrong password with 403 INVALID_PASSWORD and mails nothing', async () => {
      const session = await registerAndLogin(t);
      const newEmail = uniqueUser('Nope').email;
      const response = await requestEmailChange(session.access, {
        password: 'not the password',
        newEmail,
      });
      expectError(response, 403, 'INVALID_PASSWORD');
      expect(mailsTo(newEmail)).toEqual([]);
      expect(await liveChangeTokens(session.user.id)).toBe(0);
    });

    it('answers an address another account has 409 REGISTRATION_FAILED, as registration does, and mails it nothing', async () => {
      const session = await registerAndLogin(t);
      const other = await registerAndLogin(t);
      const before = mailsTo(other.credentials.email).length;
      const response = await requestEmailChange(session.access, {
        password: PASSWORD,
        newEmail: other.credentials.email.toUpperCase(),
      });
      expectError(response, 409, 'REGISTRATION_FAILED');
      expect(response.body.message).toBe('An account with this email already exists');
      expect(response.body.details).toEqual([
        { field: 'newEmail', message: 'An account with this email already exists' },
      ]);
      expect(mailsTo(other.credentials.email)).toHaveLength(before);
      expect(await liveChangeTokens(session.user.id)).toBe(0);
    });

    it.each([
      ['no password', { password: undefined }, 'password'],
      ['an invalid address', { newEmail: 'not-an-address' }, 'newEmail'],
      ['a quoted address', { newEmail: '"a,b"@example.com' }, 'newEmail'],
      ['a foreign applicationUrl', { applicationUrl: `${FOREIGN_ORIGIN}/x` }, 'applicationUrl'],
      ['an unknown field', { role: 'admin' }, 'role'],
    ])('refuses %s with 400', async (_label, change, field) => {
      const session = await registerAndLogin(t);
      const response = await requestEmailChange(session.access, {
        password: PASSWORD,
        newEmail: uniqueUser('Bad').email,
        ...change,
      });
      expectError(response, 400, 'VALIDATION_ERROR');
      expect(response.body.details).toEqual(
        expect.arrayContaining([expect.objectContaining({ field })]),
      );
      expect(await liveChangeTokens(session.user.id)).toBe(0);
    });

    it('refuses the account’s own address with 400', async () => {
      const session = await registerAndLogin(t);
      const response = await requestEmailChange(session.access, {
        password: PASSWORD,
        newEmail: session.credentials.email,
      });
      expectError(response, 400, 'VALIDATION_ERROR');
      expect(response.body.details).toEqual([expect.objectContaining({ field: 'newEmail' })]);
    });

    it('retires the older links once a newer one is sent', async () => {
      const session = await registerAndLogin(t);
      const first = await requestChange(session, uniqueUser('First').email);
      const second = await requestChange(session, uniqueUser('Second').email);
      expect(await liveChangeTokens(session.user.id)).toBe(1);
      const replaced = await confirm(first.token);
      expectError(replaced, 401, 'INVALID_TOKEN');
      expect(replaced.body.details).toEqual([expect.objectContaining({ reason: 'replaced' })]);
      const confirmed = await confirm(second.token).expect(200);
      expect(confirmed.body.data.user.email).toBe(second.to);
      const spent = await confirm(first.token);
      expect(spent.body.details).toEqual([expect.objectContaining({ reason: 'used' })]);
    });

    it('refuses an expired, unknown or malformed token', async () => {
      const session = await registerAndLogin(t);
      const mail = await requestChange(session, uniqueUser('Late').email);
      await t.dataSource
        .getRepository(VerificationToken)
        .update(
          { userId: session.user.id, purpose: 'email_change' },
          { expiresAt: new Date(Date.now() - 1000) },
        );
      const expired = await confirm(mail.token);
      expectError(expired, 401, 'INVALID_TOKEN');
      expect(expired.body.details).toEqual([expect.objectContaining({ reason: 'expired' })]);
      const unknown = await confirm('x'.repeat(43));
      expectError(unknown, 401, 'INVALID_TOKEN');
      expect(unknown.body.details).toBeUndefined();
      expectError(
        await t.http().post('/api/v1/users/me/email/confirm').send({}),
        400,
        'VALIDATION_ERROR',
      );
      expectError(await confirm('x'.repeat(257)), 400, 'VALIDATION_ERROR');
      expect((await stored(session.user.id)).email).toBe(session.credentials.email);
    });

    it('does not let a reset or verification token stand in for a change token', async () => {
      const session = await registerAndLogin(t);
      const verification = mailsTo(session.credentials.email).at(-1)!;
      expect(verification.subject).toMatch(/^Verify/);
      expectError(await confirm(verification.token), 401, 'INVALID_TOKEN');
      // And a change token does not verify or reset anything.
      const mail = await requestChange(session, uniqueUser('Kind').email);
      expectError(
        await t.http().post('/api/v1/auth/verify-email').send({ token: mail.token }),
        401,
        'INVALID_TOKEN',
      );
      await confirm(mail.token).expect(200);
    });

    it('answers 409 and changes nothing when another account took the address meanwhile', async () => {
      const session = await registerAndLogin(t);
      const wanted = uniqueUser('Taken');
      const mail = await requestChange(session, wanted.email);
      await t.http().post('/api/v1/auth/register').send(wanted).expect(201);

      const response = await confirm(mail.token);
      expectError(response, 409, 'REGISTRATION_FAILED');
      expect((await stored(session.user.id)).email).toBe(session.credentials.email);
      expect(await events(session.user.id)).not.toContain('email_changed');
      // Rolled back with the rest: the link was not used up.
      expect(await liveChangeTokens(session.user.id)).toBe(1);
      expect(mailsTo(session.credentials.email).map((m) => m.subject)).not.toContain(
        'The email address of your Auth Service account was changed',
      );
    });

    it('retires links mailed to the old address (reset, verification) when the address changes', async () => {
      const session = await registerAndLogin(t);
      const verification = mailsTo(session.credentials.email).at(-1)!;
      await t
        .http()
        .post('/api/v1/auth/forgot-password')
        .send({ email: session.credentials.email })
        .expect(200);
      const reset = sink.last();
      const mail = await requestChange(session, uniqueUser('Away').email);
      await confirm(mail.token).expect(200);

      expectError(
        await t
          .http()
          .post('/api/v1/auth/reset-password')
          .send({ token: reset.token, newPassword: 'taken over by the old inbox' }),
        401,
        'INVALID_TOKEN',
      );
      expectError(
        await t.http().post('/api/v1/auth/verify-email').send({ token: verification.token }),
        401,
        'INVALID_TOKEN',
      );
    });

    it('answers 503 EMAIL_SERVICE_ERROR when the link cannot be sent, and leaves no live link', async () => {
      const session = await registerAndLogin(t);
      sink.refuse = { responseCode: 550, message: 'mailbox unavailable' };
      const response = await requestEmailChange(session.access, {
        password: PASSWORD,
        newEmail: uniqueUser('Bounce').email,
      });
      expectError(response, 503, 'EMAIL_SERVICE_ERROR');
      expect(await liveChangeTokens(session.user.id)).toBe(0);
    });

    it('uses a token once under 20 parallel confirmations', async () => {
      const session = await registerAndLogin(t);
      const newEmail = uniqueUser('Race').email;
      const mail = await requestChange(session, newEmail);
      const before = mailsTo(session.credentials.email).length;

      const responses = await Promise.all(Array.from({ length: 20 }, () => confirm(mail.token)));

      const statuses = responses.map((response) => response.status).sort();
      expect(statuses).toEqual([200, ...Array<number>(19).fill(401)]);
      for (const response of responses.filter((r) => r.status !== 200)) {
        expectError(response, 401, 'INVALID_TOKEN');
      }
      expect((await stored(session.user.id)).email).toBe(newEmail);
      expect((await events(session.user.id)).filter((type) => type === 'email_changed')).toEqual([
        'email_changed',
      ]);
      // One notice to the old address, not twenty.
      expect(mailsTo(session.credentials.email)).toHaveLength(before + 1);
    });

    it('needs the access token to ask, but not to confirm', async () => {
      const body = { password: PASSWORD, newEmail: uniqueUser('Anon').email };
      expectError(await t.http().post('/api/v1/users/me/email').send(body), 401, 'INVALID_TOKEN');
      const session = await registerAndLogin(t);
      expectError(
        await t
          .http()
          .post('/api/v1/users/me/email')
          .set('Origin', FOREIGN_ORIGIN)
          .set('Cookie', `access_token=${session.access}`)
          .send(body),
        403,
        'FORBIDDEN_ORIGIN',
      );
    });
  });

  describe('undoing an email change from the old address', () => {
    const undo = (token: string) => t.http().post('/api/v1/users/me/email/undo').send({ token });
    /** Moves the account to a new address and returns the notice the old one got. */
    const changeEmail = async (session: LoggedIn) => {
      const newEmail = uniqueUser('TakenOver').email;
      await requestEmailChange(session.access, { password: PASSWORD, newEmail }).expect(200);
      await confirm(mailsTo(newEmail).at(-1)!.token).expect(200);
      const notice = mailsTo(session.credentials.email).at(-1)!;
      expect(notice.subject).toBe('The email address of your Auth Service account was changed');
      return { newEmail, notice };
    };

    it('moves the account back, verified, and ends every session; the link works once', async () => {
      const session = await registerAndLogin(t);
      const other = await login(t, session.credentials);
      const { newEmail, notice } = await changeEmail(session);

      // Opening the page uses nothing up.
      const page = await t
        .http()
        .get(new URL(notice.link).pathname + new URL(notice.link).search)
        .expect(200);
      expect(page.headers['content-type']).toMatch(/^text\/html/);
      expect(page.text).toContain('Undo the change');
      expect(page.text).not.toContain(notice.token);
      expect(page.headers['content-security-policy']).toMatch(/script-src 'nonce-[^']+'/);

      const undone = await undo(notice.token).expect(200);
      expect(undone.body).toEqual({
        success: true,
        message:
          'The account is back at this address and every session of it has ended. Choose a ' +
          'new password now with "Forgot password" on the sign-in page.',
        data: {
          user: expect.objectContaining({
            id: session.user.id,
            email: session.credentials.email,
            email_verified: true,
          }),
        },
      });
      expect(await events(session.user.id)).toContain('email_change_undone');
      // Whoever held a session is out, access and refresh alike, on every device.
      for (const signedIn of [session, other]) {
        expectError(await me(signedIn.access), 401, 'INVALID_TOKEN');
        expectError(await refreshWith(t, signedIn.refresh), 401, 'INVALID_TOKEN');
      }
      await login(t, session.credentials);
      expectError(
        await t.http().post('/api/v1/auth/login').send({ email: newEmail, password: PASSWORD }),
        401,
        'LOGIN_FAILED',
      );
      const again = await undo(notice.token);
      expectError(again, 401, 'INVALID_TOKEN');
      expect(again.body.details).toEqual([
        {
          field: 'token',
          reason: 'used',
          message: 'The undo link was already used, or a change to the account withdrew it',
        },
      ]);
    });

    it('still works after whoever moved the account changed its password, and stops their links', async () => {
      const session = await registerAndLogin(t);
      const { newEmail, notice } = await changeEmail(session);
      // The taker changes the password and asks for a reset link at their address.
      await changePassword(session.access, {
        currentPassword: PASSWORD,
        newPassword: NEW_PASSWORD,
      }).expect(200);
      await t.http().post('/api/v1/auth/forgot-password').send({ email: newEmail }).expect(200);
      const takersReset = mailsTo(newEmail).at(-1)!;
      expect(takersReset.subject).toMatch(/^Reset/);

      await undo(notice.token).expect(200);
      expect((await stored(session.user.id)).email).toBe(session.credentials.email);
      expectError(
        await t
          .http()
          .post('/api/v1/auth/reset-password')
          .send({ token: takersReset.token, newPassword: 'the taker tries again' }),
        401,
        'INVALID_TOKEN',
      );
      // The owner takes the account back with a reset of their own.
      await t
        .http()
        .post('/api/v1/auth/forgot-password')
        .send({ email: session.credentials.email })
        .expect(200);
      const reset = mailsTo(session.credentials.email).at(-1)!;
      await t
        .http()
        .post('/api/v1/auth/reset-password')
        .send({ token: reset.token, newPassword: 'mine again, for good' })
        .expect(200);
      await login(t, { email: session.credentials.email, password: 'mine again, for good' });
    });

    it('leaves only the latest way back after two changes, and refuses an expired link', async () => {
      const session = await registerAndLogin(t);
      const first = await changeEmail(session);
      const secondAddress = uniqueUser('SecondMove').email;
      await requestEmailChange(session.access, {
        password: PASSWORD,
        newEmail: secondAddress,
      }).expect(200);
      await confirm(mailsTo(secondAddress).at(-1)!.token).expect(200);
      const second = mailsTo(first.newEmail).at(-1)!;
      expect(second.subject).toBe('The email address of your Auth Service account was changed');

      // The owner's link (to the first address) takes the account home and ends the other.
      await undo(first.notice.token).expect(200);
      expectError(await undo(second.token), 401, 'INVALID_TOKEN');
      expect((await stored(session.user.id)).email).toBe(session.credentials.email);

      const later = await registerAndLogin(t);
      const { notice } = await changeEmail(later);
      await t.dataSource
        .getRepository(VerificationToken)
        .update(
          { userId: later.user.id, purpose: 'email_change_undo' },
          { expiresAt: new Date(Date.now() - 1000) },
        );
      const expired = await undo(notice.token);
      expectError(expired, 401, 'INVALID_TOKEN');
      expect(expired.body.details).toEqual([expect.objectContaining({ reason: 'expired' })]);
      expect((await stored(later.user.id)).email).not.toBe(later.credentials.email);
    });

    it('answers 409 and changes nothing when the old address was registered since', async () => {
      const session = await registerAndLogin(t);
      const { newEmail, notice } = await changeEmail(session);
      await t
        .http()
        .post('/api/v1/auth/register')
        .send({ ...uniqueUser('Squatter'), email: session.credentials.email })
        .expect(201);
      const response = await undo(notice.token);
      expectError(response, 409, 'REGISTRATION_FAILED');
      expect((await stored(session.user.id)).email).toBe(newEmail);
      // Rolled back: the session is still live, and nothing was used up.
      await me(session.access).expect(200);
      expect(await events(session.user.id)).not.toContain('email_change_undone');
    });

    it('refuses a change token, a malformed body and an unknown token', async () => {
      const session = await registerAndLogin(t);
      const newEmail = uniqueUser('Kinds').email;
      await requestEmailChange(session.access, { password: PASSWORD, newEmail }).expect(200);
      const change = mailsTo(newEmail).at(-1)!;
      expectError(await undo(change.token), 401, 'INVALID_TOKEN');
      expectError(await undo('x'.repeat(43)), 401, 'INVALID_TOKEN');
      expectError(
        await t.http().post('/api/v1/users/me/email/undo').send({}),
        400,
        'VALIDATION_ERROR',
      );
    });
  });
});

/**
 * Run after the suite above has closed its app: two apps alive in one process would share
 * passport's registered strategies.
 */
describe('the account routes and the strict rate limit', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ THROTTLE_AUTH_LIMIT: '3', THROTTLE_LIMIT: '1000' });
  });
  afterAll(() => t?.close());

  it('are not under the budget login and register draw from: a user who signed in can still change things', async () => {
    // Register and login: two of the three; a second login spends the last.
    const session = await registerAndLogin(t);
    await t
      .http()
      .post('/api/v1/auth/login')
      .send({ email: session.credentials.email, password: PASSWORD })
      .expect(200);
    expectError(
      await t
        .http()
        .post('/api/v1/auth/login')
        .send({ email: session.credentials.email, password: PASSWORD }),
      429,
      'RATE_LIMITED',
    );
    const bearer = { Authorization: `Bearer ${session.access}` };

    // Wrong passwords are slowed per account instead (the login slow-down), not per address.
    expectError(
      await t
        .http()
        .post('/api/v1/users/me/email')
        .set(bearer)
        .send({ password: 'not the password', newEmail: uniqueUser('Limited').email }),
      403,
      'INVALID_PASSWORD',
    );
    await t
      .http()
      .post('/api/v1/users/me/email')
      .set(bearer)
      .send({ password: PASSWORD, newEmail: uniqueUser('Limited').email })
      .expect(200);
    expectError(
      await t
        .http()
        .post('/api/v1/users/me/email/confirm')
        .send({ token: 'x'.repeat(43) }),
      401,
      'INVALID_TOKEN',
    );
    await t
      .http()
      .post('/api/v1/users/me/password')
      .set(bearer)
      .send({ currentPassword: PASSWORD, newPassword: NEW_PASSWORD })
      .expect(200);
  });
});
