import { User } from './user.entity';

/**
 * A user with ids of their sessions (refresh-token families) known to be live, read together:
 * the one a check asked about, and those earlier checks under the same stamp found live.
 */
export interface UserWithSessions {
  user: User;
  sessions: ReadonlySet<string>;
}

interface Entry {
  user: User;
  /** Present when the entry was loaded for an access-token check, with the live sessions. */
  sessions?: ReadonlySet<string>;
  stamp: string;
  expires: number;
}

/**
 * Users by id, with their token version, kept in process so a token check needs no database
 * round trip when warm. The database stays the truth: entries expire after `ttlMs`, and every
 * change to a user (logout, reset, reuse detection, verification, a session ended) invalidates
 * its entry once the change has committed.
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
  private readonly entries = new Map<string, Entry>();
  private epoch = 0;

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
  ) {}

  get enabled(): boolean {
    return this.ttlMs > 0;
  }

  get(id: string, stamp = '', now = Date.now()): User | undefined {
    return this.entry(id, stamp, now)?.user;
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
    if (user && this.enabled && epoch === this.epoch) this.store({ user }, stamp);
    return user;
  }

  /**
   * As `getOrLoad`, for an access-token check of session `sessionId`: served from an entry that
   * names this session as live. An entry without it is loaded again (`load` reads the user and
   * whether this one session is live), and the sessions the entry already knew are kept beside
   * it: under the same stamp none of them can have ended (ending one moves the stamp, or
   * invalidates here). A user signed in on many devices so builds the set one check at a time
   * instead of reading every session on each load.
   */
  async getOrLoadWithSessions(
    id: string,
    sessionId: string,
    load: () => Promise<UserWithSessions | null>,
    stamp = '',
  ): Promise<UserWithSessions | null> {
    const cached = this.enabled ? this.entry(id, stamp, Date.now()) : undefined;
    if (cached?.sessions?.has(sessionId)) return { user: cached.user, sessions: cached.sessions };
    const epoch = this.epoch;
    const loaded = await load();
    if (!loaded || !this.enabled || epoch !== this.epoch) return loaded;
    const known = cached?.sessions ?? new Set<string>();
    const kept = { user: loaded.user, sessions: new Set([...known, ...loaded.sessions]) };
    this.store(kept, stamp);
    return kept;
  }

  invalidate(id: string): void {
    this.epoch += 1;
    this.entries.delete(id);
  }

  clear(): void {
    this.epoch += 1;
    this.entries.clear();
  }

  private entry(id: string, stamp: string, now: number): Entry | undefined {
    const entry = this.entries.get(id);
    if (!entry) return undefined;
    if (entry.expires > now && entry.stamp === stamp) return entry;
    this.entries.delete(id);
    return undefined;
  }

  private store(loaded: { user: User; sessions?: ReadonlySet<string> }, stamp: string): void {
    const { user, sessions } = loaded;
    this.entries.delete(user.id);
    if (this.entries.size >= this.maxEntries) {
      // Oldest first: a Map iterates in insertion order.
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(user.id, { user, sessions, stamp, expires: Date.now() + this.ttlMs });
  }
}
