import { User } from './user.entity';

/**
 * Users by id, with their token version, kept in process so a token check needs no database
 * round trip when warm. The database stays the truth: entries expire after `ttlMs`, and every
 * change to a user (logout, reset, reuse detection, verification) invalidates its entry once
 * the change has committed.
 *
 * Each entry carries the stamp it was loaded under (with several instances, the user's
 * generation in Redis, read before the load): it is served only to a check that presents the
 * same stamp, so a change made anywhere since the load makes the next check read the database.
 *
 * A read that started before an invalidation must not put its (possibly stale) copy back after
 * it: every invalidation bumps an epoch, and a fill is kept only if the epoch did not move while
 * the read was in flight.
 */
export class UserCache {
  private readonly entries = new Map<string, { user: User; stamp: string; expires: number }>();
  private epoch = 0;

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
  ) {}

  get enabled(): boolean {
    return this.ttlMs > 0;
  }

  get(id: string, stamp = '', now = Date.now()): User | undefined {
    const entry = this.entries.get(id);
    if (!entry) return undefined;
    if (entry.expires > now && entry.stamp === stamp) return entry.user;
    this.entries.delete(id);
    return undefined;
  }

  /**
   * Reads through the cache: `load` runs on a miss, and its result is kept under `stamp` unless
   * invalidated meanwhile. `stamp` must have been read before this call.
   */
  async getOrLoad(id: string, load: () => Promise<User | null>, stamp = ''): Promise<User | null> {
    const cached = this.enabled ? this.get(id, stamp) : undefined;
    if (cached) return cached;
    const epoch = this.epoch;
    const user = await load();
    if (user && this.enabled && epoch === this.epoch) this.store(user, stamp);
    return user;
  }

  invalidate(id: string): void {
    this.epoch += 1;
    this.entries.delete(id);
  }

  clear(): void {
    this.epoch += 1;
    this.entries.clear();
  }

  private store(user: User, stamp: string): void {
    this.entries.delete(user.id);
    if (this.entries.size >= this.maxEntries) {
      // Oldest first: a Map iterates in insertion order.
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(user.id, { user, stamp, expires: Date.now() + this.ttlMs });
  }
}
