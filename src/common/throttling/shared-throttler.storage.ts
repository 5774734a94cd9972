import { ThrottlerStorageRedisService } from '@nest-lab/throttler-storage-redis';
import { ThrottlerStorage } from '@nestjs/throttler';
import { RedisService } from '../../redis/redis.service';
import { ThrottlerStorageRecord } from './sliding-window.storage';

/**
 * Counters in Redis, shared by every instance (REDIS_URL), through the maintained
 * `@nest-lab/throttler-storage-redis`. While Redis is away each instance counts on its own, so
 * requests keep being served and limits still hold per instance.
 */
export class SharedThrottlerStorage implements ThrottlerStorage {
  private readonly shared: ThrottlerStorageRedisService;

  constructor(
    private readonly redis: RedisService,
    private readonly local: ThrottlerStorage,
  ) {
    if (!redis.client) throw new Error('SharedThrottlerStorage needs REDIS_URL');
    this.shared = new ThrottlerStorageRedisService(redis.client);
  }

  async increment(
    key: string,
    ttl: number,
    limit: number,
    blockDuration: number,
    throttlerName: string,
  ): Promise<ThrottlerStorageRecord> {
    if (this.redis.ready) {
      try {
        return await this.shared.increment(key, ttl, limit, blockDuration, throttlerName);
      } catch (error) {
        this.redis.failed(error);
      }
    }
    return this.local.increment(key, ttl, limit, blockDuration, throttlerName);
  }
}
