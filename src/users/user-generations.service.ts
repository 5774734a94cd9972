import { Injectable, Logger } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { SecurityConfig } from '../config/config.sections';
import { RedisService } from '../redis/redis.service';

/** One random value shared by every instance; FLUSHALL (or a Redis that lost its data) removes it. */
const EPOCH_KEY = 'user-gen-epoch';
/** Changes remembered while Redis is down; past this, a recovery renews the epoch instead. */
const MAX_PENDING = 10_000;

const generationKey = (userId: string) => `user-gen:${userId}`;
const randomValue = () => randomBytes(12).toString('base64url');

/**
 * With several instances (REDIS_URL), what makes a cached user safe to serve: every change to a
 * user writes a fresh random generation to Redis before the change answers, and a token check
 * serves a cached user only if it was loaded under the generation Redis holds now. A logout on
 * one instance is therefore refused on every other one by the next check, with no notice to wait
 * for.
 *
 * A generation outlives any cache entry loaded before it was written: were it to expire first,
 * an entry loaded under the missing key would match again. The epoch key, read in the same round
 * trip, catches the keys vanishing all at once.
 *
 * Without Redis there is one instance, and its cache is invalidated in process (`LOCAL`).
 */
@Injectable()
export class UserGenerations {
  private readonly logger = new Logger('UserGenerations');
  private readonly ttlMs: number;
  private readonly caching: boolean;
  /** Changes whose generation could not be written: written once Redis answers again. */
  private readonly pending = new Set<string>();
  /** More changes than `pending` holds were missed: every instance's cache must go. */
  private overflowed = false;

  static readonly LOCAL = '';

  constructor(
    private readonly redis: RedisService,
    security: SecurityConfig,
  ) {
    this.ttlMs = 2 * security.userCacheTtl * 1000 + 60_000;
    this.caching = security.userCacheTtl > 0;
    redis.onRecovery(() => void this.recover());
  }

  /**
   * The stamp a cached entry for `userId` must carry to be served now, read before loading;
   * undefined when no cache may be used (Redis down on this instance, or its epoch missing).
   */
  async current(userId: string): Promise<string | undefined> {
    const client = this.redis.client;
    // Without a cache the stamp is never compared: no round trip for it.
    if (!client || !this.caching) return UserGenerations.LOCAL;
    if (!this.redis.ready) return undefined;
    try {
      const [generation, epoch] = await client.mget(generationKey(userId), EPOCH_KEY);
      if (epoch === null) {
        void this.ensureEpoch();
        return undefined;
      }
      return `${epoch}/${generation ?? ''}`;
    } catch (error) {
      this.redis.failed(error);
      return undefined;
    }
  }

  /**
   * After a change to the user has committed, before it answers. Never throws: the change is
   * made; if Redis cannot take the new generation, it is kept and written once Redis answers.
   */
  async bump(userId: string): Promise<void> {
    const client = this.redis.client;
    // Written even with this instance's cache off: the other instances' caches may be on.
    if (!client) return;
    if (!this.redis.ready) {
      this.remember(userId);
      // Taken for down, perhaps for a moment only (one answer late behind a busy event loop),
      // while the other instances read Redis as usual: on an open connection the generation is
      // sent all the same, before the change answers, but not waited for (a hung server would
      // hold the change). The recovery writes it again.
      if (client.status === 'ready') {
        client.set(generationKey(userId), randomValue(), 'PX', this.ttlMs).catch(() => undefined);
      }
      return;
    }
    try {
      await client.set(generationKey(userId), randomValue(), 'PX', this.ttlMs);
    } catch (error) {
      this.remember(userId);
      this.redis.failed(error);
    }
  }

  private remember(userId: string): void {
    if (this.pending.size >= MAX_PENDING) this.overflowed = true;
    else this.pending.add(userId);
  }

  /** Writes what was missed, then makes sure the epoch exists. */
  private async recover(): Promise<void> {
    const client = this.redis.client;
    if (!client) return;
    const userIds = [...this.pending];
    const overflowed = this.overflowed;
    this.pending.clear();
    this.overflowed = false;
    try {
      if (overflowed) {
        await client.set(EPOCH_KEY, randomValue());
        this.logger.warn(
          'Too many changes were made while Redis was down: every cached user is dropped',
        );
      }
      if (userIds.length > 0) {
        const batch = client.pipeline();
        for (const userId of userIds) {
          batch.set(generationKey(userId), randomValue(), 'PX', this.ttlMs);
        }
        const results = (await batch.exec()) ?? [];
        const failure = results.find(([error]) => error)?.[0];
        if (failure || results.length < userIds.length) throw failure ?? new Error('pipeline');
      }
      await this.ensureEpoch();
    } catch (error) {
      for (const userId of userIds) this.remember(userId);
      this.overflowed ||= overflowed;
      this.redis.failed(error);
    }
  }

  private async ensureEpoch(): Promise<void> {
    const client = this.redis.client;
    if (!client) return;
    try {
      await client.set(EPOCH_KEY, randomValue(), 'NX');
    } catch (error) {
      this.redis.failed(error);
    }
  }
}
