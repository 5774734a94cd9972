import { Injectable } from '@nestjs/common';
import { LoginBackoffConfig } from '../config/config.sections';
import { RedisService } from '../redis/redis.service';
import { normalizeEmail } from '../users/identity.normalizer';
import { LocalLoginBackoff } from './local-login-backoff';

/**
 * Atomic: count the failure, renew the quiet period, and start the wait it earns (`backoffMs`,
 * the same rule in Lua, so every instance computes it from the one shared count).
 * KEYS: failures, wait. ARGV: quiet period (ms), free failures, base wait (ms), longest wait (ms).
 */
const FAILED = `
local failures = redis.call('INCR', KEYS[1])
redis.call('PEXPIRE', KEYS[1], ARGV[1])
local free = tonumber(ARGV[2])
if failures >= free then
  local wait = math.min(tonumber(ARGV[4]), tonumber(ARGV[3]) * 2 ^ math.min(failures - free, 40))
  redis.call('SET', KEYS[2], '1', 'PX', string.format('%d', wait))
end
return failures
`;

/**
 * Per-account slow-down of logins (LoginBackoffConfig), whatever address they come from. Keyed by
 * the normalised email, never by the account, so an unknown email is slowed exactly like a known
 * one and the answer tells nothing about existence. With REDIS_URL the count is shared by every
 * instance; without Redis, or while it is down, each instance counts alone.
 *
 * Only failures count: an owner's correct logins, however many run at once, are never slowed.
 */
@Injectable()
export class LoginBackoff {
  private readonly local: LocalLoginBackoff;
  private readonly rule: string[];

  constructor(
    private readonly redis: RedisService,
    config: LoginBackoffConfig,
  ) {
    this.local = new LocalLoginBackoff(config);
    this.rule = [
      config.resetSeconds * 1000,
      config.free,
      config.baseSeconds * 1000,
      config.maxSeconds * 1000,
    ].map(String);
  }

  /** Seconds the account must still wait before its password may be tried (rounded up), or 0. */
  async waiting(email: string): Promise<number> {
    const key = normalizeEmail(email);
    const client = this.redis.client;
    if (client && this.redis.ready) {
      try {
        return toSeconds(await client.pttl(waitKey(key)));
      } catch (error) {
        this.redis.failed(error);
      }
    }
    return toSeconds(this.local.waiting(key));
  }

  /** A wrong password (or no such account): counted, and the account may have to wait. */
  async failed(email: string): Promise<void> {
    const key = normalizeEmail(email);
    const client = this.redis.client;
    if (client && this.redis.ready) {
      try {
        await client.eval(FAILED, 2, failuresKey(key), waitKey(key), ...this.rule);
        return;
      } catch (error) {
        this.redis.failed(error);
      }
    }
    this.local.failed(key);
  }

  /** The correct password: the account starts afresh, on every instance. */
  async succeeded(email: string): Promise<void> {
    const key = normalizeEmail(email);
    this.local.forget(key);
    const client = this.redis.client;
    if (!client || !this.redis.ready) return;
    try {
      await client.del(failuresKey(key), waitKey(key));
    } catch (error) {
      this.redis.failed(error);
    }
  }
}

const failuresKey = (email: string) => `login-failures:${email}`;
const waitKey = (email: string) => `login-wait:${email}`;
/** PTTL answers negative for a key that is missing or has no expiry. */
const toSeconds = (ms: number) => (ms > 0 ? Math.ceil(ms / 1000) : 0);
