import { Connection, createConnection } from 'mysql2';

/**
 * `SELECT 1` on a MySQL connection of its own, outside the pool: whether the server answers
 * promptly, not how long requests queue for a pooled connection. A busy pool is the per-call
 * deadlines' business and must not take a healthy instance out. A connection that fails or
 * answers late is dropped; the next probe makes a new one.
 */
export class ServerProbe {
  private connection: Connection | undefined;

  constructor(
    private readonly url: string,
    private readonly timeoutMs: number,
  ) {}

  selectOne(): Promise<boolean> {
    const connection = (this.connection ??= this.connect());
    return new Promise<boolean>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.drop(connection);
        reject(new Error('The database did not answer the probe in time'));
      }, this.timeoutMs);
      connection.query('SELECT 1', (error) => {
        clearTimeout(timer);
        if (!error) return resolve(true);
        this.drop(connection);
        reject(error);
      });
    });
  }

  close(): void {
    if (this.connection) this.drop(this.connection);
  }

  private connect(): Connection {
    const connection = createConnection({
      uri: this.url.replace(/^mariadb:/, 'mysql:'),
      connectTimeout: this.timeoutMs,
    });
    // Failures reach the probe through its query; a connection error must not reach the process.
    connection.on('error', () => undefined);
    return connection;
  }

  private drop(connection: Connection): void {
    if (this.connection === connection) this.connection = undefined;
    connection.destroy();
  }
}
