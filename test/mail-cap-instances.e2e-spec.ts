import { Response } from 'supertest';
import { expectError, registerUser, uniqueUser } from './support/auth-helpers';
import { Pair, startPair } from './support/instance-pair';
import { eventually, redisOf } from './support/shared-redis';
import { APP_ORIGIN, TestApp } from './support/test-app';

/**
 * Issue 22, item 6, across instances: two instances on one MariaDB and one Redis prefix (the
 * MariaDB pass) share each address's count of mails; while Redis is away each counts alone.
 */
describe('the per-recipient mail cap across instances', () => {
  let pair: Pair;
  beforeAll(async () => {
    pair = await startPair({ MAIL_RECIPIENT_LIMIT: '3', MAIL_RECIPIENT_WINDOW: '900' });
  });
  afterAll(() => pair?.close());

  const forgot = (t: TestApp, email: string) =>
    t.http().post('/api/v1/auth/forgot-password').set('Origin', APP_ORIGIN).send({ email });
  const resetMails = async (email: string) => {
    const both = [...(await pair.a.outbox()), ...(await pair.b.outbox())];
    return both.filter((mail) => mail.to === email && mail.subject.startsWith('Reset your'));
  };
  const expectCapped = (response: Response) => {
    expectError(response, 429, 'RATE_LIMITED');
    expect(Number(response.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(response.headers['retry-after'])).toBeLessThanOrEqual(900);
  };

  it('counts the mails both instances send to one address together', async () => {
    const { a, b } = pair;
    const { credentials } = await registerUser(a, uniqueUser('SharedCap'));
    await forgot(a, credentials.email).expect(200);
    await forgot(b, credentials.email).expect(200);
    await forgot(a, credentials.email.toUpperCase()).expect(200);
    expectCapped(await forgot(b, credentials.email));
    expectCapped(await forgot(a, credentials.email));
    expect(await resetMails(credentials.email)).toHaveLength(3);
    // Counted in Redis all along, not by each instance on its own.
    expect(redisOf(a).ready && redisOf(b).ready).toBe(true);
  });

  it('caps each instance alone while Redis is away, and serves on', async () => {
    const { a, b, proxy } = pair;
    const { credentials } = await registerUser(a, uniqueUser('AloneCap'));
    await proxy.cut();
    try {
      await eventually(() => !redisOf(a).ready && !redisOf(b).ready, 3000);
      for (let i = 0; i < 3; i++) await forgot(a, credentials.email).expect(200);
      expectCapped(await forgot(a, credentials.email));
      await forgot(b, credentials.email).expect(200);
    } finally {
      await proxy.restore();
    }
    await eventually(() => redisOf(a).ready && redisOf(b).ready, 5000);
    expect(await resetMails(credentials.email)).toHaveLength(4);
  });
});
