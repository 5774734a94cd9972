import { LoginBackoffConfig } from '../config/config.sections';
import { backoffMs } from './login-backoff.policy';

interface Account {
  failures: number;
  waitUntil: number;
  forgetAt: number;
}

/** Past this many accounts, the ones idle longest are forgotten first: memory stays bounded. */
const MAX_ACCOUNTS = 100_000;

/**
 * The same rule as the shared counts, for one instance: when there is no Redis, or while it is
 * down. Map order is insertion order, and every failure re-inserts its account, so the first
 * entries are the ones idle longest.
 */
export class LocalLoginBackoff {
  private readonly accounts = new Map<string, Account>();

  constructor(private readonly config: LoginBackoffConfig) {}

  /** Milliseconds the account must still wait, or 0. */
  waiting(key: string, now = Date.now()): number {
    const account = this.live(key, now);
    return account && account.waitUntil > now ? account.waitUntil - now : 0;
  }

  failed(key: string, now = Date.now()): void {
    const failures = (this.live(key, now)?.failures ?? 0) + 1;
    this.accounts.delete(key);
    this.accounts.set(key, {
      failures,
      waitUntil: now + backoffMs(this.config, failures),
      forgetAt: now + this.config.resetSeconds * 1000,
    });
    this.trim(now);
  }

  forget(key: string): void {
    this.accounts.delete(key);
  }

  private live(key: string, now: number): Account | undefined {
    const account = this.accounts.get(key);
    return account && account.forgetAt > now ? account : undefined;
  }

  private trim(now: number): void {
    for (const [key, account] of this.accounts) {
      if (this.accounts.size <= MAX_ACCOUNTS && account.forgetAt > now) return;
      this.accounts.delete(key);
    }
  }
}
