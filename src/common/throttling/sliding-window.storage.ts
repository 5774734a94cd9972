import { OnApplicationShutdown } from '@nestjs/common';
import { ThrottlerStorage } from '@nestjs/throttler';

interface Window {
  /** Times of the hits still inside the window, oldest first, from `head` on. */
  hits: number[];
  head: number;
  blockedUntil: number;
}

export interface ThrottlerStorageRecord {
  totalHits: number;
  timeToExpire: number;
  isBlocked: boolean;
  timeToBlockExpire: number;
}

const SWEEP_EVERY_MS = 60_000;

/**
 * In-process throttler storage with the same sliding-window rule as the built-in one ("at most
 * `limit` hits in any `ttl`", then blocked for `blockDuration`), at amortised O(1) per request.
 * The built-in memory storage re-filters the list of every hit in the window on each request,
 * which grows without bound under load when limits are generous. Single instance only: shared
 * limits across instances need a shared store.
 */
export class SlidingWindowStorage implements ThrottlerStorage, OnApplicationShutdown {
  private readonly windows = new Map<string, Window>();
  private readonly sweeper: NodeJS.Timeout;
  private longestTtl = 0;

  constructor() {
    this.sweeper = setInterval(() => this.sweep(Date.now()), SWEEP_EVERY_MS);
    this.sweeper.unref();
  }

  increment(
    key: string,
    ttl: number,
    limit: number,
    blockDuration: number,
    _throttlerName: string,
  ): Promise<ThrottlerStorageRecord> {
    const now = Date.now();
    this.longestTtl = Math.max(this.longestTtl, ttl, blockDuration);
    let window = this.windows.get(key);
    if (!window) {
      window = { hits: [], head: 0, blockedUntil: 0 };
      this.windows.set(key, window);
    }
    this.dropExpired(window, now - ttl);
    if (window.blockedUntil > now) {
      return Promise.resolve(this.record(window, ttl, limit + 1, now));
    }
    if (blockDuration <= 0 && window.hits.length - window.head >= limit) {
      // No block period: refuse while the window is full; a refused hit is not counted, so the
      // window frees up as its oldest hits age out.
      const oldest = window.hits[window.head];
      return Promise.resolve({
        totalHits: limit + 1,
        timeToExpire: Math.ceil((oldest + ttl - now) / 1000),
        isBlocked: true,
        timeToBlockExpire: Math.ceil((oldest + ttl - now) / 1000),
      });
    }
    window.hits.push(now);
    const count = window.hits.length - window.head;
    if (count > limit) window.blockedUntil = now + blockDuration;
    return Promise.resolve(this.record(window, ttl, count, now));
  }

  onApplicationShutdown(): void {
    clearInterval(this.sweeper);
  }

  private record(
    window: Window,
    ttl: number,
    totalHits: number,
    now: number,
  ): ThrottlerStorageRecord {
    const oldest = window.head < window.hits.length ? window.hits[window.head] : now;
    const blocked = window.blockedUntil > now;
    return {
      totalHits,
      timeToExpire: Math.ceil((oldest + ttl - now) / 1000),
      isBlocked: blocked,
      timeToBlockExpire: blocked ? Math.ceil((window.blockedUntil - now) / 1000) : 0,
    };
  }

  private dropExpired(window: Window, horizon: number): void {
    while (window.head < window.hits.length && window.hits[window.head] <= horizon) window.head++;
    // Compact once the dead prefix is the larger part, so memory follows the live hits.
    if (window.head > 1024 && window.head * 2 > window.hits.length) {
      window.hits = window.hits.slice(window.head);
      window.head = 0;
    }
  }

  private sweep(now: number): void {
    for (const [key, window] of this.windows) {
      this.dropExpired(window, now - this.longestTtl);
      if (window.head >= window.hits.length && window.blockedUntil <= now) this.windows.delete(key);
    }
  }
}
