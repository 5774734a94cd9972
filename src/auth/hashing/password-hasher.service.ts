import { Injectable, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { join } from 'node:path';
import { Piscina } from 'piscina';
import { AppException } from '../../common/errors/app.exception';
import { MAX_PASSWORD_BYTES } from '../../common/validation/password.decorator';
import { SecurityConfig } from '../../config/config.sections';

type BcryptTask =
  | { op: 'hash'; password: string; cost: number }
  | { op: 'compare'; password: string; hash: string }
  | { op: 'thread' };

/**
 * bcrypt in a pool of worker threads, one per core by default (HASH_THREADS), with a bounded
 * queue (HASH_QUEUE_LIMIT). When the queue is full, login and register answer 503 with
 * `Retry-After` at once instead of letting every caller wait longer and longer.
 */
@Injectable()
export class PasswordHasher implements OnModuleInit, OnApplicationShutdown {
  private readonly pool: Piscina<BcryptTask, string | boolean | number>;
  /** A real hash at the configured cost: an unknown email costs as much as a wrong password. */
  private dummyHash = '';

  constructor(private readonly security: SecurityConfig) {
    this.pool = new Piscina({
      filename: join(__dirname, 'bcrypt.worker.js'),
      minThreads: security.hashThreads,
      maxThreads: security.hashThreads,
      maxQueue: security.hashQueueLimit,
      idleTimeout: 60_000,
      // The worker is plain JavaScript: none of the parent's flags (a TypeScript loader, V8
      // sizes meant for the main heap) belong in it.
      execArgv: [],
      // bcrypt needs a few kilobytes of heap; without limits each worker's V8 would reserve and
      // grow like a full application's.
      resourceLimits: {
        maxYoungGenerationSizeMb: 1,
        maxOldGenerationSizeMb: 12,
        codeRangeSizeMb: 4,
      },
    });
  }

  async onModuleInit(): Promise<void> {
    this.dummyHash = await this.hash('timing-equaliser');
  }

  /** After the HTTP server has stopped taking requests, so no hash in flight is cut short. */
  async onApplicationShutdown(): Promise<void> {
    await this.pool.destroy();
  }

  async hash(password: string): Promise<string> {
    return (await this.run({ op: 'hash', password, cost: this.security.bcryptCost })) as string;
  }

  /**
   * False for a password longer than bcrypt reads: otherwise any string sharing the first 72
   * bytes would match. With no hash (unknown account) the dummy is compared, for equal timing.
   */
  async verify(password: string, hash: string | null | undefined): Promise<boolean> {
    const tooLong = Buffer.byteLength(password, 'utf8') > MAX_PASSWORD_BYTES;
    // No account, or an account without a password: the dummy hash takes as long, and fails.
    const stored = typeof hash === 'string' && hash !== '' ? hash : undefined;
    const matches = await this.run({ op: 'compare', password, hash: stored ?? this.dummyHash });
    return matches === true && stored !== undefined && !tooLong;
  }

  /** The worker thread a task runs on (for tests: never the event loop's). */
  workerThreadId(): Promise<number> {
    return this.run({ op: 'thread' }) as Promise<number>;
  }

  private async run(task: BcryptTask): Promise<string | boolean | number> {
    if (this.pool.queueSize >= this.security.hashQueueLimit) throw busy();
    try {
      return await this.pool.run(task);
    } catch (error) {
      // piscina refuses a task when its queue is at the limit (a race with the check above), and
      // aborts queued ones when the service stops: both are "try again", not faults.
      if (
        error instanceof Error &&
        /queue is at limit|aborted|Terminating worker/i.test(error.message)
      ) {
        throw busy();
      }
      throw error;
    }
  }
}

function busy(): AppException {
  return new AppException('SERVICE_UNAVAILABLE', {
    message: 'Too many sign-ins at once, try again in a moment',
    retryAfter: 1,
  });
}
