import { Socket } from 'node:net';
import { QueryRunner } from 'typeorm';

/** The part of mysql2's pooled connection that giving one up needs. */
interface PooledConnection {
  /** Takes it out of the pool for good and closes it. */
  destroy(): void;
  stream?: Socket;
}

/** A database call that outlived its deadline (DATABASE_TIMEOUT_MS). */
export class DeadlineExceeded extends Error {
  constructor() {
    super('The database call outlived its deadline');
  }
}

/**
 * Runs `task` on `runner` (whose pool wait `connected` is) and rejects with DeadlineExceeded at
 * `deadline` (epoch ms) if it has not settled. The call is then given up for good: its
 * connection is destroyed, never returned to the pool, so the server rolls back whatever was
 * under way and nothing of it can be written afterwards (unless its COMMIT had reached the
 * server: Database says so in its 503); a connection still being waited for
 * goes back to the pool unused when it arrives. The abandoned task's promise never settles and
 * is collected with its connection.
 */
export async function withinDeadline<T>(
  runner: QueryRunner,
  connected: Promise<unknown>,
  deadline: number,
  task: () => Promise<T>,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DeadlineExceeded()), Math.max(0, deadline - Date.now()));
  });
  try {
    return await Promise.race([connected.then(task), expired]);
  } catch (error) {
    if (error instanceof DeadlineExceeded) abandon(runner, connected);
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

function abandon(runner: QueryRunner, connected: Promise<unknown>): void {
  const connection = (runner as unknown as { databaseConnection?: PooledConnection })
    .databaseConnection;
  if (!connection) {
    connected.then(
      () => runner.release(),
      () => undefined,
    );
    return;
  }
  // A reset rather than a close: statements still queued in the socket (a COMMIT) are dropped
  // instead of being delivered when a partitioned network heals. Before mysql2's own destroy,
  // whose graceful end() would make the reset fail and leave the socket's handle open.
  try {
    connection.stream?.resetAndDestroy();
  } catch {
    // Not a plain TCP socket (TLS): closing it is what remains.
    connection.stream?.destroy();
  }
  connection.destroy();
}
