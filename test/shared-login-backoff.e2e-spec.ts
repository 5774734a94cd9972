import { registerUser, uniqueUser } from './support/auth-helpers';
import { Pair, startPair } from './support/instance-pair';
import {
  BACKOFF_ENV,
  Botnet,
  SLOWED_DOWN,
  outcome,
  pause,
  slowDown,
} from './support/login-backoff';
import { eventually, redisOf } from './support/shared-redis';
import { TestApp } from './support/test-app';

/**
 * Two instances on one MariaDB and one Redis (the MariaDB pass): failures on either slow the
 * account down on both. The count is forgotten five seconds after the last counted attempt.
 */
describe('per-account login slow-down across instances', () => {
  let pair: Pair;
  beforeAll(async () => {
    pair = await startPair({ ...BACKOFF_ENV, LOGIN_FAILURES_RESET: '5' });
  });
  afterAll(() => pair?.close());

  const wrong = (email: string) => ({ email, password: 'not-the-password' });
  const tries = async (botnet: Botnet, turns: TestApp[], email: string) => {
    const seen: string[] = [];
    for (const t of turns) seen.push(outcome(await botnet.login(t, wrong(email))));
    return seen;
  };

  it('counts failures on either instance for one account, from any address', async () => {
    const { a, b } = pair;
    const botnet = new Botnet();
    const owner = (await registerUser(a, uniqueUser('Shared'))).credentials;
    const unknown = `nobody-${owner.username}@example.com`;

    const [known, missing] = await slowDown([a, b], botnet, [owner.email, unknown], owner.password);

    expect(known).toEqual(SLOWED_DOWN);
    expect(missing).toEqual(SLOWED_DOWN);
    expect(botnet.addresses).toBeGreaterThanOrEqual(20);
    // Counted in Redis all along, not by each instance on its own.
    expect(redisOf(a).ready && redisOf(b).ready).toBe(true);

    // After the wait, the owner gets in on B, and the account starts afresh on A as well.
    const right = { email: owner.email, password: owner.password };
    expect(outcome(await botnet.login(b, right))).toBe('200');
    expect(await tries(botnet, [a, a, b, a], owner.email)).toEqual([
      '401',
      '401',
      '401',
      '429 after 1',
    ]);
  });

  it('forgets the count after a quiet period', async () => {
    const { a, b } = pair;
    const botnet = new Botnet();
    const email = uniqueUser('Quiet').email;
    expect(await tries(botnet, [a, b], email)).toEqual(['401', '401']);
    await pause(5);
    expect(await tries(botnet, [b, a, b, a], email)).toEqual(['401', '401', '401', '429 after 1']);
  });

  it('slows each instance down alone while Redis is away', async () => {
    const { a, b, proxy } = pair;
    const botnet = new Botnet();
    await proxy.cut();
    try {
      await eventually(() => !redisOf(a).ready && !redisOf(b).ready, 3000);
      const email = uniqueUser('Alone').email;
      expect(await tries(botnet, [a, a, a, a], email)).toEqual([
        '401',
        '401',
        '401',
        '429 after 1',
      ]);
    } finally {
      await proxy.restore();
    }
    await eventually(() => redisOf(a).ready && redisOf(b).ready, 5000);
  });
});
