import Redis from 'ioredis';
import { SecurityConfig } from '../config/config.sections';
import { RedisService } from '../redis/redis.service';
import { UserGenerations } from './user-generations.service';

/** Redis as far as UserGenerations uses it: strings with SET (PX, NX), MGET and a pipeline. */
class FakeRedis {
  readonly values = new Map<string, string>();
  down = false;
  /** The connection is open but the server answers nothing (stopped): a write is kept, unanswered. */
  hung = false;
  status = 'ready';

  set(key: string, value: string, ...options: Array<string | number>): Promise<'OK' | null> {
    if (this.down) return Promise.reject(new Error('Command timed out'));
    if (this.hung) {
      this.values.set(key, value);
      return new Promise(() => undefined);
    }
    if (options.includes('NX') && this.values.has(key)) return Promise.resolve(null);
    this.values.set(key, value);
    return Promise.resolve('OK');
  }

  mget(...keys: string[]): Promise<Array<string | null>> {
    if (this.down) return Promise.reject(new Error('Command timed out'));
    return Promise.resolve(keys.map((key) => this.values.get(key) ?? null));
  }

  pipeline() {
    const queued: Array<() => Promise<unknown>> = [];
    const batch = {
      set: (key: string, value: string, ...options: Array<string | number>) => {
        queued.push(() => this.set(key, value, ...options));
        return batch;
      },
      exec: () =>
        Promise.all(
          queued.map((run) =>
            run().then(
              (result) => [null, result],
              (error: unknown) => [error, null],
            ),
          ),
        ),
    };
    return batch;
  }
}

/** RedisService's contract as UserGenerations sees it: `ready`, `failed`, `onRecovery`. */
function setup() {
  const client = new FakeRedis();
  const recoveries: Array<() => void> = [];
  const redis = {
    client: client as unknown as Redis,
    ready: true,
    failed: jest.fn(() => {
      redis.ready = false;
    }),
    onRecovery: (hook: () => void) => recoveries.push(hook),
  };
  const security = { userCacheTtl: 1 } as SecurityConfig;
  const generations = new UserGenerations(redis as unknown as RedisService, security);
  const recover = async () => {
    client.down = false;
    redis.ready = true;
    for (const hook of recoveries) hook();
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { client, redis, generations, recover, recoveries };
}

describe('UserGenerations', () => {
  it('changes the stamp of a user when the user changes, and only that user', async () => {
    const { generations, recover } = setup();
    await recover(); // the epoch is created when Redis first answers
    const before = await generations.current('user_1');
    const other = await generations.current('user_2');
    expect(before).toBeDefined();

    await generations.bump('user_1');

    expect(await generations.current('user_1')).not.toBe(before);
    expect(await generations.current('user_2')).toBe(other);
  });

  it('gives no stamp (no cache) while the epoch is missing, and recreates it', async () => {
    const { client, generations, recover } = setup();
    await recover();
    const before = await generations.current('user_1');
    client.values.clear(); // FLUSHALL

    expect(await generations.current('user_1')).toBeUndefined();
    await new Promise((resolve) => setImmediate(resolve));
    const after = await generations.current('user_1');
    expect(after).toBeDefined();
    expect(after).not.toBe(before);
  });

  it('takes Redis for down when a write fails, and writes the change once it answers', async () => {
    const { client, redis, generations, recover } = setup();
    await recover();
    const before = await generations.current('user_1');
    client.down = true;

    await generations.bump('user_1');
    expect(redis.failed).toHaveBeenCalledTimes(1);
    expect(await generations.current('user_1')).toBeUndefined();
    // Further changes while down are remembered without asking Redis again.
    await generations.bump('user_2');
    expect(redis.failed).toHaveBeenCalledTimes(1);

    const other = client.values.get('user-gen:user_2');
    await recover();
    expect(await generations.current('user_1')).not.toBe(before);
    expect(client.values.get('user-gen:user_2')).not.toBe(other);
    expect(client.values.get('user-gen:user_2')).toBeDefined();
  });

  it('sends a change while it takes Redis for down, on an open connection, without waiting', async () => {
    const { client, redis, generations, recover } = setup();
    await recover();
    // One late answer made this instance take Redis for down; the other instances still read
    // it, and must see the change at once.
    redis.ready = false;
    const before = client.values.get('user-gen:user_1');

    await generations.bump('user_1');
    const sent = client.values.get('user-gen:user_1');
    expect(sent).toBeDefined();
    expect(sent).not.toBe(before);

    // A server that hangs does not hold the change, and the recovery writes it again.
    client.hung = true;
    await generations.bump('user_1');
    client.hung = false;
    const during = client.values.get('user-gen:user_1');
    await recover();
    expect(client.values.get('user-gen:user_1')).not.toBe(during);
    expect(redis.failed).not.toHaveBeenCalled();
  });

  it('keeps what it could not write when the recovery write fails too', async () => {
    const { client, redis, generations, recover, recoveries } = setup();
    await recover();
    client.down = true;
    await generations.bump('user_1');

    // A PING answered, but the pending write fails: still pending, and Redis is down again.
    redis.ready = true;
    for (const hook of recoveries) hook();
    await new Promise((resolve) => setImmediate(resolve));
    expect(redis.failed).toHaveBeenCalledTimes(2);
    expect(client.values.get('user-gen:user_1')).toBeUndefined();

    await recover();
    expect(client.values.get('user-gen:user_1')).toBeDefined();
  });
});
