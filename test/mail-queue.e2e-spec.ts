import { MailQueue } from '../src/mail/mail-queue.service';
import { QueuedMail } from '../src/mail/queued-mail.entity';
import { User } from '../src/users/user.entity';
import { expectError, login, registerAndLogin, uniqueUser } from './support/auth-helpers';
import { ReceivedMail, SmtpSink } from './support/mailbox';
import { TestApp, startTestApp } from './support/test-app';

const METRICS_TOKEN = 'metrics-token-0123456789-abcdefghijkl';
const REFUSED = { responseCode: 451, message: 'Try again later' };

describe('mails that may fail quietly go through the queue', () => {
  let sink: SmtpSink;
  let t: TestApp;

  beforeAll(async () => {
    sink = await new SmtpSink().start();
    t = await startTestApp({
      SMTP_URL: sink.url,
      SMTP_TIMEOUT_MS: '2000',
      MAIL_RETRY_SCHEDULE: '1,1,1',
      METRICS_TOKEN,
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
  const rows = () => t.dataSource.getRepository(QueuedMail);
  /** The first mail to `to` whose subject matches, waited for up to `seconds`. */
  const arrival = async (to: string, subject: RegExp, seconds = 8): Promise<ReceivedMail> => {
    const deadline = Date.now() + seconds * 1000;
    for (;;) {
      const mail = sink.to(to).find((received) => subject.test(received.subject));
      if (mail) return mail;
      if (Date.now() > deadline) throw new Error(`No mail "${subject.source}" to ${to}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };

  it('answers a registration 201 while SMTP refuses, then delivers the link once it accepts', async () => {
    sink.refuse = REFUSED;
    const credentials = uniqueUser('Queued');
    const response = await post('/auth/register', credentials).expect(201);
    expect(response.body.message).toMatch(/on its way/);
    const stored = await t.dataSource.getRepository(User).findOneBy({ email: credentials.email });
    expect(stored?.emailVerified).toBe(false);
    expect(sink.to(credentials.email)).toHaveLength(0);

    sink.refuse = undefined;
    const mail = await arrival(credentials.email, /verify/i);
    await post('/auth/verify-email', { token: mail.token }).expect(200);
    expect(
      (await t.dataSource.getRepository(User).findOneBy({ email: credentials.email }))
        ?.emailVerified,
    ).toBe(true);
    // Sent once, and the finished row keeps nothing of the mail.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(sink.to(credentials.email)).toHaveLength(1);
    const [row] = await rows().findBy({ status: 'sent' });
    expect(row.payload).toBe('');
  });

  it('keeps no token or address in clear in a queued row', async () => {
    sink.refuse = REFUSED;
    const credentials = uniqueUser('Sealed');
    await post('/auth/register', credentials).expect(201);
    const pending = await rows().findBy({ status: 'pending' });
    expect(pending.length).toBeGreaterThan(0);
    for (const row of pending) {
      expect(row.payload).not.toContain(credentials.email);
      expect(row.payload).toMatch(/^v1\./);
    }
    sink.refuse = undefined;
    await arrival(credentials.email, /verify/i);
  });

  it('delivers a password-changed notice once SMTP accepts again', async () => {
    const session = await registerAndLogin(t);
    sink.refuse = REFUSED;
    await t
      .http()
      .post('/api/v1/users/me/password')
      .set('Authorization', `Bearer ${session.access}`)
      .send({ currentPassword: session.credentials.password, newPassword: 'queued-new-pass' })
      .expect(200);
    await login(t, { email: session.credentials.email, password: 'queued-new-pass' });
    expect(sink.to(session.credentials.email).some((m) => /password/i.test(m.subject))).toBe(false);
    sink.refuse = undefined;
    const notice = await arrival(session.credentials.email, /password/i);
    expect(notice.text).toContain(`Hello ${session.credentials.username},`);
  });

  it('never sends a mail whose link has expired', async () => {
    sink.refuse = REFUSED;
    const credentials = uniqueUser('Expired');
    await post('/auth/register', credentials).expect(201);
    const [row] = await rows().findBy({ status: 'pending' });
    expect(row).toBeDefined();
    await rows().update({ id: row.id }, { expiresAt: new Date(Date.now() - 1000) });
    sink.refuse = undefined;
    const deadline = Date.now() + 8000;
    while ((await rows().findOneByOrFail({ id: row.id })).status === 'pending') {
      if (Date.now() > deadline) throw new Error('The expired mail was never finished');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(await rows().findOneByOrFail({ id: row.id })).toMatchObject({
      status: 'expired',
      payload: '',
    });
    expect(sink.to(credentials.email)).toHaveLength(0);
  });

  it('gives up after the schedule, marking the mail failed', async () => {
    sink.refuse = REFUSED;
    const credentials = uniqueUser('GivenUp');
    await post('/auth/register', credentials).expect(201);
    const [row] = await rows().findBy({ status: 'pending' });
    const deadline = Date.now() + 10_000;
    while ((await rows().findOneByOrFail({ id: row.id })).status === 'pending') {
      if (Date.now() > deadline) throw new Error('The mail was still retried');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(await rows().findOneByOrFail({ id: row.id })).toMatchObject({
      status: 'failed',
      attempts: 4,
    });
    expect(sink.to(credentials.email)).toHaveLength(0);
  });

  it('still answers forgot-password and resend 503 EMAIL_SERVICE_ERROR at once', async () => {
    const credentials = uniqueUser('AtOnce');
    await post('/auth/register', credentials).expect(201);
    await arrival(credentials.email, /verify/i);
    sink.refuse = REFUSED;
    const before = await rows().count();
    expectError(
      await post('/auth/forgot-password', { email: credentials.email }),
      503,
      'EMAIL_SERVICE_ERROR',
    );
    expectError(
      await post('/auth/resend-verification-email', { email: credentials.email }),
      503,
      'EMAIL_SERVICE_ERROR',
    );
    expect(await rows().count()).toBe(before);
  });

  it('queues nothing for a registration that rolled back', async () => {
    const queue = t.app.get(MailQueue);
    const original = queue.queue.bind(queue);
    const spy = jest.spyOn(queue, 'queue').mockImplementation(async (...args) => {
      await original(...args);
      throw new Error('the registration fails after its mail was queued');
    });
    const before = await rows().count();
    const credentials = uniqueUser('RolledBack');
    try {
      expect((await post('/auth/register', credentials)).status).toBe(500);
    } finally {
      spy.mockRestore();
    }
    expect(await rows().count()).toBe(before);
    expect(await t.dataSource.getRepository(User).findOneBy({ email: credentials.email })).toBe(
      null,
    );
  });

  it('counts queued, sent and failed mails by kind, and the queue depth', async () => {
    const text = (await t.http().get('/metrics').set('Authorization', `Bearer ${METRICS_TOKEN}`))
      .text;
    expect(text).toMatch(/auth_mail_queue_total\{kind="verification",outcome="queued"\} [1-9]/);
    expect(text).toMatch(/auth_mail_queue_total\{kind="verification",outcome="sent"\} [1-9]/);
    expect(text).toMatch(/auth_mail_queue_total\{kind="verification",outcome="failed"\} [1-9]/);
    expect(text).toMatch(
      /auth_mail_queue_total\{kind="password-changed",outcome="retrying"\} [1-9]/,
    );
    expect(text).toMatch(/auth_mail_queue_depth \d+/);
  });
});
