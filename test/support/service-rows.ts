import Sqlite from 'better-sqlite3';
import { createConnection } from 'mysql2/promise';

/**
 * A statement on a service process's database from beside it, as an operator's tool would: the
 * SQLite file (WAL lets it be read and written while the service runs) or the MariaDB database.
 * `?` placeholders.
 */
export async function queryRows<T = Record<string, unknown>>(
  databaseUrl: string,
  sql: string,
  parameters: unknown[] = [],
): Promise<T[]> {
  if (databaseUrl.startsWith('sqlite:')) {
    const connection = new Sqlite(databaseUrl.slice('sqlite:'.length), { timeout: 5000 });
    try {
      const statement = connection.prepare(sql);
      if (statement.reader) return statement.all(...parameters) as T[];
      statement.run(...parameters);
      return [];
    } finally {
      connection.close();
    }
  }
  const connection = await createConnection({ uri: databaseUrl });
  try {
    const [rows] = await connection.query(sql, parameters);
    return Array.isArray(rows) ? (rows as T[]) : [];
  } finally {
    await connection.end();
  }
}
