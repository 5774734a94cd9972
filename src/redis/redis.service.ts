import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import Redis, { RedisOptions } from 'ioredis';
import { RedisConfig } from '../config/config.sections';

/** How long a command may take before it counts as failed: a request never waits on Redis longer. */
const COMMAND_TIMEOUT_MS = 500;

/**
 * The connections to Redis when `REDIS_URL` is set: one for commands, one for pub/sub. Redis is
 * a helper, never a dependency: commands fail at once while it is away (no queue that would hold
 * requests), callers fall back to what they can do alone, the outage and the recovery are logged
 * once each, and ioredis reconnects by itself.
 */
@Injectable()
export class RedisService implements OnApplicationShutdown {
  private readonly logger = new Logger('Redis');
  readonly client: Redis | undefined;
  private readonly subscriber: Redis | undefined;
  private readonly handlers = new Map<string, (message: string) => void>();
  private readonly resyncs: Array<() => void> = [];
  private down = false;
  private stopping = false;

  constructor(private readonly config: RedisConfig) {
    if (!config.url) return;
    const options: RedisOptions = {
      keyPrefix: config.keyPrefix,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: COMMAND_TIMEOUT_MS,
      connectTimeout: 1000,
      retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
    };
    this.client = new Redis(config.url, options);
    // Subscriptions made before the first connection wait for it; ioredis renews them after a
    // reconnection. No ready check there: its INFO would be refused once the connection is in
    // subscriber mode.
    this.subscriber = new Redis(config.url, {
      ...options,
      enableOfflineQueue: true,
      enableReadyCheck: false,
    });
    for (const connection of [this.client, this.subscriber]) {
      connection.on('error', (error: Error) => this.lost(error));
      // A server that goes away may close the connection without an error.
      connection.on('close', () => this.lost(new Error('connection closed')));
      connection.on('ready', () => this.back());
    }
    this.subscriber.on('message', (channel: string, message: string) =>
      this.handlers.get(channel)?.(message),
    );
  }

  get enabled(): boolean {
    return this.client !== undefined;
  }

  /** Both connections are up: what is published now reaches every instance. */
  get ready(): boolean {
    return this.client?.status === 'ready' && this.subscriber?.status === 'ready';
  }

  /** Tells every instance, this one included. False if Redis could not take it. */
  async publish(channel: string, message: string): Promise<boolean> {
    if (!this.client || !this.ready) return false;
    try {
      await this.client.publish(this.channel(channel), message);
      return true;
    } catch (error) {
      this.failed(error);
      return false;
    }
  }

  subscribe(channel: string, handler: (message: string) => void): void {
    if (!this.subscriber) return;
    const name = this.channel(channel);
    this.handlers.set(name, handler);
    this.subscriber.subscribe(name).catch((error: unknown) => this.failed(error));
  }

  /**
   * Runs whenever the connections come (back) up: messages sent meanwhile never arrived, so
   * whatever they would have corrected must be dropped.
   */
  onResync(handler: () => void): void {
    this.resyncs.push(handler);
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopping = true;
    const quits = [this.client, this.subscriber].map(async (connection) => {
      if (!connection) return;
      // QUIT on a connection that is down would wait for a reconnection that may never come.
      if (connection.status !== 'ready') return connection.disconnect();
      await connection.quit().catch(() => connection.disconnect());
    });
    await Promise.all(quits);
  }

  /** Pub/sub channels are not prefixed by ioredis; keys are. */
  private channel(name: string): string {
    return `${this.config.keyPrefix}${name}`;
  }

  /** A command failed: logged once per outage, whatever the connection's state says. */
  failed(error: unknown): void {
    this.lost(error instanceof Error ? error : new Error(String(error)));
  }

  private lost(error: Error): void {
    if (this.down || this.stopping) return;
    this.down = true;
    this.logger.warn(
      `Redis is unreachable (${error.message}): rate limits are per instance and token checks ` +
        'read the database until it is back',
    );
  }

  private back(): void {
    if (!this.ready) return;
    for (const resync of this.resyncs) resync();
    if (!this.down) return;
    this.down = false;
    this.logger.log('Redis is reachable again: shared rate limits and revocations resume');
  }
}
