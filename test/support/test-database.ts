import { randomBytes } from 'node:crypto';
import { createConnection } from 'mysql2/promise';

export interface TestDatabase {
  url: string;
  kind: 'sqlite' | 'mysql';
  drop(): Promise<void>;
}

/**
 * With TEST_DATABASE_URL (a MySQL/MariaDB server URL) every suite gets a throwaway database of its
 * own, dropped afterwards; an unreachable server fails the suite, it is never skipped. Without it,
 * an in-memory SQLite database.
 */
export async function createTestDatabase(): Promise<TestDatabase> {
  const server = process.env.TEST_DATABASE_URL;
  if (!server) return { url: 'sqlite::memory:', kind: 'sqlite', drop: () => Promise.resolve() };
  const name = `auth_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  const base = new URL(server);
  base.pathname = '/';
  const admin = await createConnection({ uri: base.toString(), connectTimeout: 5000 }).catch(
    (error: unknown) => {
      throw new Error(`TEST_DATABASE_URL is set but MySQL is not reachable: ${String(error)}`);
    },
  );
  await admin.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
  await admin.end();
  const url = new URL(base.toString());
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    kind: 'mysql',
    drop: async () => {
      const connection = await createConnection({ uri: base.toString() });
      await connection.query(`DROP DATABASE IF EXISTS \`${name}\``);
      await connection.end();
    },
  };
}
