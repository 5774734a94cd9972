import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import Redis from 'ioredis';
import { LateTimer, lateTimer } from '../common/late-timer';
import { RedisConfig } from '../config/config.sections';

/** How long a command may take before it counts as failed: a request never waits on Redis longer. */
const COMMAND_TIMEOUT_MS = 500;
/** Silence while commands wait, after which the connection is dropped and made again. */
const SOCKET_TIMEOUT_MS = 2000;
/** While Redis is taken for down, how often it is asked whether it answers again. */
const PROBE_INTERVAL_MS = 500;
/** A probe's own deadline: a hung server must not hold the probe loop. */
const PROBE_TIMEOUT_MS = 300;

/**
 * The connection to Redis when `REDIS_URL` is set. Redis is a helper, never a dependency: commands
 * fail at once while it is away (no queue that would hold requests), callers fall back to what
 * they can do alone, and ioredis reconnects by itself.
 *
 * The first failure of any kind (closed connection, error, a command past its deadline: a hung
 * server keeps its connection open) makes this instance take Redis for down: `ready` is false, so
 * no request waits on it again, and a background PING asks until it answers. The outage and the
 * recovery are logged once each, however the outage happened.
 */
@Injectable()
export class RedisService implements OnApplicationShutdown {
  private readonly logger = new Logger('Redis');
  readonly client: Redis | undefined;
  private readonly recoveries: Array<() => void> = [];
  /** Redis answered the last time it was asked, and nothing failed since. */
  private up = false;
  /** "unreachable" was logged and "reachable again" not yet. */
  private outage = false;
  /**
   * A command timed out and the probe has not answered yet: down for requests, not yet an
   * outage. ioredis's command deadline is a plain timer, which fires before the answer is read
   * when this process's event loop stalled (a burst of work, another app booting in it); the
   * probe, whose deadline waits for what arrived, tells a hung server from that.
   */
  private suspected: string | undefined;
  private probeTimer: NodeJS.Timeout | undefined;
  private probing = false;
  private stopping = false;

  constructor(config: RedisConfig) {
    if (!config.url) return;
    this.client = new Redis(config.url, {
      keyPrefix: config.keyPrefix,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: COMMAND_TIMEOUT_MS,
      connectTimeout: 1000,
      // A connection that stops answering while commands wait (a silently dropped peer, a
      // failover) is destroyed and made again: commandTimeout only gives up on the caller, and
      // the OS would notice a half-open socket after hours.
      socketTimeout: SOCKET_TIMEOUT_MS,
      retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
    });
    this.client.on('error', (error: Error) => this.failed(error));
    // A server that goes away may close the connection without an error.
    this.client.on('close', () => this.failed(new Error('connection closed')));
    this.client.on('ready', () => this.probeNow());
  }

  get enabled(): boolean {
    return this.client !== undefined;
  }

  /** Redis answers: shared limits and cached token checks may use it. */
  get ready(): boolean {
    return this.up && this.client?.status === 'ready';
  }

  /**
   * Runs each time Redis answers again after an outage (and once it first answers): whatever
   * this instance holds that Redis would have corrected meanwhile must be dropped, and whatever
   * it could not write must be written. A hook reports its own failures through `failed`.
   */
  onRecovery(hook: () => void): void {
    this.recoveries.push(hook);
  }

  /**
   * A command failed or timed out: Redis is down for this instance until a probe answers. A
   * timeout is an outage once the probe does not answer either (asked at once).
   */
  failed(error: unknown): void {
    if (this.stopping || !this.client) return;
    this.up = false;
    const reason = error instanceof Error ? error.message : String(error);
    if (!this.outage && /timed out/i.test(reason)) {
      this.suspected ??= reason;
      return this.probeNow();
    }
    this.declareOutage(reason);
    this.scheduleProbe(PROBE_INTERVAL_MS);
  }

  private declareOutage(reason: string): void {
    this.suspected = undefined;
    if (this.outage) return;
    this.outage = true;
    this.logger.warn(
      `Redis is unreachable (${reason}): rate limits are per instance and token checks ` +
        'read the database until it is back',
    );
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.probeTimer);
    const connection = this.client;
    if (!connection) return;
    // QUIT on a connection that is down would wait for a reconnection that may never come.
    if (connection.status !== 'ready' || !this.up) return connection.disconnect();
    await connection.quit().catch(() => connection.disconnect());
  }

  private probeNow(): void {
    clearTimeout(this.probeTimer);
    this.probeTimer = undefined;
    void this.probe();
  }

  private scheduleProbe(delayMs: number): void {
    if (this.stopping || this.probing || this.probeTimer) return;
    this.probeTimer = setTimeout(() => {
      this.probeTimer = undefined;
      void this.probe();
    }, delayMs);
    this.probeTimer.unref();
  }

  private async probe(): Promise<void> {
    if (this.probing || this.up || this.stopping || !this.client) return;
    this.probing = true;
    let answered = false;
    try {
      answered = (await withDeadline(this.client.ping(), PROBE_TIMEOUT_MS)) === 'PONG';
    } catch {
      // Still down: the next probe asks again.
    } finally {
      this.probing = false;
    }
    if (this.stopping) return;
    if (answered && this.client.status === 'ready') return this.back();
    if (this.suspected) this.declareOutage(this.suspected);
    this.scheduleProbe(PROBE_INTERVAL_MS);
  }

  private back(): void {
    this.up = true;
    this.suspected = undefined;
    if (this.outage) {
      this.outage = false;
      this.logger.log(
        'Redis is reachable again: shared rate limits and cached token checks resume',
      );
    }
    for (const recovery of this.recoveries) recovery();
  }
}

/**
 * `promise`, or a rejection after `ms` unless its answer was waiting to be read (lateTimer); the
 * late outcome of `promise` is ignored.
 */
function withDeadline<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: LateTimer | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = lateTimer(ms, () => reject(new Error('deadline')));
  });
  promise.catch(() => undefined);
  return Promise.race([promise, deadline]).finally(() => timer?.cancel());
}
