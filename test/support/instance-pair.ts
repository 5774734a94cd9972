import {
  CapturedLog,
  dropKeys,
  eventually,
  redisOf,
  redisProxy,
  uniquePrefix,
} from './shared-redis';
import { TcpProxy } from './tcp-proxy';
import { TestApp, startTestApp } from './test-app';
import { createTestDatabase } from './test-database';

export interface Pair {
  a: TestApp;
  b: TestApp;
  /** Between both instances and the machine's Redis. */
  proxy: TcpProxy;
  close(): Promise<void>;
}

/** Two instances on one throwaway MariaDB database and one Redis key prefix of their own. */
export async function startPair(env: Record<string, string>, logger?: CapturedLog): Promise<Pair> {
  const database = await createTestDatabase();
  if (database.kind !== 'mysql')
    throw new Error('Several instances need MariaDB (TEST_DATABASE_URL)');
  const proxy = await redisProxy();
  const prefix = uniquePrefix();
  const shared = { REDIS_URL: `redis://127.0.0.1:${proxy.port}`, REDIS_KEY_PREFIX: prefix, ...env };
  const a = await startTestApp(shared, { database, logger });
  const b = await startTestApp(shared, { database, logger });
  await eventually(() => redisOf(a).ready && redisOf(b).ready, 5000);
  return {
    a,
    b,
    proxy,
    close: async () => {
      await a.close();
      await b.close();
      await proxy.stop();
      await database.drop();
      await dropKeys(prefix);
    },
  };
}
