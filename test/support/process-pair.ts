import { ServiceProcess, startServiceProcess } from './service-process';
import { REDIS_SERVER, dropKeys, uniquePrefix } from './shared-redis';
import { TestDatabase, createTestDatabase } from './test-database';

/**
 * Two instances as they are deployed: two real service processes on one throwaway MariaDB
 * database and one Redis key prefix. Two apps in one Jest process would not do: passport's
 * strategies are process-wide, so they would share one.
 */
export interface ProcessPair {
  a: ServiceProcess;
  b: ServiceProcess;
  database: TestDatabase;
  stop(): Promise<void>;
}

/** `env` adds to (or overrides) the shared database, Redis prefix and issuer. */
export async function startProcessPair(env: Record<string, string> = {}): Promise<ProcessPair> {
  const database = await createTestDatabase();
  const prefix = uniquePrefix();
  const started: ServiceProcess[] = [];
  const stop = async () => {
    for (const instance of started) await instance.stop();
    await database.drop();
    await dropKeys(prefix);
  };
  try {
    if (database.kind !== 'mysql') {
      throw new Error('Two processes need MariaDB (TEST_DATABASE_URL)');
    }
    const shared = {
      DATABASE_URL: database.url,
      REDIS_URL: REDIS_SERVER.toString(),
      REDIS_KEY_PREFIX: prefix,
      // One issuer and audience for both: they default to each instance's own URL.
      PUBLIC_URL: 'http://auth.example.test',
      ...env,
    };
    // One after the other: the first runs the migrations on the empty database.
    started.push(await startServiceProcess(shared));
    started.push(await startServiceProcess(shared));
  } catch (error) {
    await stop();
    throw error;
  }
  const [a, b] = started;
  return { a, b, database, stop };
}
