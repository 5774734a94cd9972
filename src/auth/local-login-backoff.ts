import { LoginBackoffConfig } from '../config/config.sections';
import { backoffMs } from './login-backoff.policy';

interface Account {
  attempts: number;
  waitUntil: number;
  forgetAt: number;
}

/** Past this many accounts, the ones idle longest are forgotten first: memory stays bounded. */
const MAX_ACCOUNTS = 100_000;

/**
 * The same rule as the shared counters, for one instance: when there is no Redis, or while it
 * is down. Map order is insertion order, and every counted attempt re-inserts its account, so
 * the first entries are the idle ones.
 */
export class LocalLoginBackoff {
  private readonly accounts = new Map<string, Account>();

  constructor(private readonly config: LoginBackoffConfig) {}

  /** Milliseconds still to wait (the attempt is not counted), or 0: admitted and counted. */
  admit(key: string, now = Date.now()): number {
    const known = this.accounts.get(key);
    const account = known && known.forgetAt > now ? known : undefined;
    if (account && account.waitUntil > now) return account.waitUntil - now;
    const attempts = (account?.attempts ?? 0) + 1;
    this.accounts.delete(key);
    this.accounts.set(key, {
      attempts,
      waitUntil: now + backoffMs(this.config, attempts),
      forgetAt: now + this.config.resetSeconds * 1000,
    });
    this.trim(now);
    return 0;
  }

  forget(key: string): void {
    this.accounts.delete(key);
  }

  private trim(now: number): void {
    for (const [key, account] of this.accounts) {
      if (this.accounts.size <= MAX_ACCOUNTS && account.forgetAt > now) return;
      this.accounts.delete(key);
    }
  }
}
