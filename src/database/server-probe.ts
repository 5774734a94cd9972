import { Connection, createConnection } from 'mysql2';
import { lateTimer } from '../common/late-timer';

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

  async selectOne(): Promise<boolean> {
    const kept = this.connection;
    try {
      return await this.query((this.connection ??= this.connect()));
    } catch (error) {
      // A kept connection that failed at once was lost while idle (a blip between two probes,
      // the server's idle timeout): that says nothing of the server now, and taking the instance
      // out on it would refuse every request until the next probe. Ask once more on a new one.
      if (kept === undefined || error instanceof ProbeTimeout) throw error;
      return this.query((this.connection ??= this.connect()));
    }
  }

  /**
   * Opens the probe's connection ahead of its first check, allowing it `connectTimeoutMs`: a
   * handshake is slower than a `SELECT 1` (more so on a busy machine starting several
   * processes), and the first check must measure the server, not the handshake, or a booting
   * instance is taken out for a second while its database answers. A failure is left to the
   * checks to find.
   */
  async open(connectTimeoutMs: number): Promise<void> {
    if (this.connection) return;
    const connection = (this.connection = this.connect(connectTimeoutMs));
    await new Promise<void>((resolve) => {
      connection.once('connect', () => resolve());
      connection.once('error', () => resolve());
    });
  }

  close(): void {
    if (this.connection) this.drop(this.connection);
  }

  private query(connection: Connection): Promise<boolean> {
    return new Promise<boolean>((resolve, reject) => {
      const timer = lateTimer(this.timeoutMs, () => {
        this.drop(connection);
        reject(new ProbeTimeout());
      });
      connection.query('SELECT 1', (error) => {
        timer.cancel();
        if (!error) return resolve(true);
        this.drop(connection);
        reject(error);
      });
    });
  }

  private connect(connectTimeoutMs = this.timeoutMs): Connection {
    const connection = createConnection({
      uri: this.url.replace(/^mariadb:/, 'mysql:'),
      connectTimeout: connectTimeoutMs,
    });
    // Failures reach the probe through its query; a connection error must not reach the
    // process. A connection the server closed is not kept for the next probe (and not destroyed
    // here: a query under way on it still hears of the loss from mysql2).
    const forget = () => {
      if (this.connection === connection) this.connection = undefined;
    };
    connection.on('error', forget);
    connection.on('end', forget);
    return connection;
  }

  private drop(connection: Connection): void {
    if (this.connection === connection) this.connection = undefined;
    connection.destroy();
  }
}

class ProbeTimeout extends Error {
  constructor() {
    super('The database did not answer the probe in time');
  }
}
