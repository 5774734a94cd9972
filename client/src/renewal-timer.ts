/** `setTimeout` and `clearTimeout`, injectable (`AuthClientOptions.timers`) for tests. */
export interface Timers {
  setTimeout(handler: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** The browser's own; the handle is unref'd where it can be (Node), so it keeps no process up. */
export const globalTimers: Timers = {
  setTimeout: (handler, ms) => {
    const handle: unknown = globalThis.setTimeout(handler, ms);
    (handle as { unref?: () => void } | null)?.unref?.();
    return handle;
  },
  clearTimeout: (handle) => globalThis.clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/** setTimeout fires at once past 2^31 - 1 ms (24.8 days): an ACCESS_TOKEN_TTL that long waits less. */
const LONGEST_DELAY_MS = 2 ** 31 - 1;

/**
 * When to renew an access token that had `expiresIn` seconds left when the request that learned
 * it was sent: in ms after that moment, or undefined when it lives too short to renew ahead of.
 *
 * `expiresIn` counts whole seconds, as the token's `exp` does, so the token may have had up to a
 * second less (`safe`). The renewal comes at 80% of the lifetime and at least a second before the
 * safe end; never before half of the safe lifetime, so that a short-lived token (a 2-second test
 * setting) is renewed twice a lifetime rather than in a loop.
 */
export function renewalDelay(expiresIn: number): number | undefined {
  if (!Number.isFinite(expiresIn)) return undefined;
  const lifetime = expiresIn * 1000;
  const safe = lifetime - 1000;
  if (safe <= 0) return undefined;
  return Math.max(Math.min(0.8 * lifetime, safe - 1000), safe / 2);
}

/**
 * One pending renewal of the session, ahead of the access token's expiry. `renew` is called
 * with the moment the timer was set: a refresh by another tab after it makes this one needless.
 */
export class RenewalTimer {
  private handle: unknown;
  private pending = false;

  constructor(
    private readonly timers: Timers,
    private readonly renew: (scheduledAt: number) => void,
  ) {}

  /** Whether a renewal is pending. */
  get armed(): boolean {
    return this.pending;
  }

  /**
   * Replaces any pending renewal with one for a token that had `expiresIn` seconds left when the
   * request that learned it was sent (`sentAt`, ms since the epoch). A token too short-lived to
   * renew ahead of leaves none: the 401 → refresh → retry path still covers it.
   */
  schedule(expiresIn: unknown, sentAt: number): void {
    this.cancel();
    if (typeof expiresIn !== 'number') return;
    const delay = renewalDelay(expiresIn);
    if (delay === undefined) return;
    const scheduledAt = Date.now();
    const wait = Math.min(Math.max(0, sentAt + delay - scheduledAt), LONGEST_DELAY_MS);
    this.pending = true;
    this.handle = this.timers.setTimeout(() => {
      this.pending = false;
      this.handle = undefined;
      this.renew(scheduledAt);
    }, wait);
  }

  cancel(): void {
    if (this.pending) this.timers.clearTimeout(this.handle);
    this.pending = false;
    this.handle = undefined;
  }
}
