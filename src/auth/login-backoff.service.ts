import { Injectable } from '@nestjs/common';
import { LoginBackoffConfig } from '../config/config.sections';
import { RedisService } from '../redis/redis.service';
import { normalizeEmail } from '../users/identity.normalizer';
import { LocalLoginBackoff } from './local-login-backoff';

/**
 * One round trip, atomic: refuse while the account waits (not counted), else count the attempt,
 * renew the quiet period and start the wait this attempt earns (`backoffMs`, the same rule in
 * Lua). Counting before the password is checked means parallel attempts cannot all slip in under
 * the free ones.
 * KEYS: attempts, wait. ARGV: quiet period (ms), free attempts, base wait (ms), longest wait (ms).
 */
const ADMIT = `
local waiting = redis.call('PTTL', KEYS[2])
if waiting > 0 then return waiting end
local attempts = redis.call('INCR', KEYS[1])
redis.call('PEXPIRE', KEYS[1], ARGV[1])
local free = tonumber(ARGV[2])
if attempts >= free then
  local wait = math.min(tonumber(ARGV[4]), tonumber(ARGV[3]) * 2 ^ math.min(attempts - free, 40))
  redis.call('SET', KEYS[2], '1', 'PX', string.format('%d', wait))
end
return 0
`;

/**
 * Per-account slow-down of logins (LoginBackoffConfig), whatever address they come from. Keyed by
 * the normalised email, never by the account, so an unknown email is slowed exactly like a known
 * one and the answer tells nothing about existence. With REDIS_URL the count is shared by every
 * instance; without Redis, or while it is down, each instance counts alone.
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

  /**
   * Before the password is checked. Seconds the account must still wait (rounded up; the
   * attempt is refused and not counted), or 0: the attempt is admitted and counted as a failure
   * until `succeeded` says otherwise.
   */
  async admit(email: string): Promise<number> {
    const key = normalizeEmail(email);
    const client = this.redis.client;
    if (client && this.redis.ready) {
      try {
        const waiting = await client.eval(ADMIT, 2, attemptsKey(key), waitKey(key), ...this.rule);
        return toSeconds(Number(waiting));
      } catch (error) {
        this.redis.failed(error);
      }
    }
    return toSeconds(this.local.admit(key));
  }

  /** The correct password: the account starts afresh, on every instance. */
  async succeeded(email: string): Promise<void> {
    const key = normalizeEmail(email);
    this.local.forget(key);
    const client = this.redis.client;
    if (!client || !this.redis.ready) return;
    try {
      await client.del(attemptsKey(key), waitKey(key));
    } catch (error) {
      this.redis.failed(error);
    }
  }
}

const attemptsKey = (email: string) => `login-failures:${email}`;
const waitKey = (email: string) => `login-wait:${email}`;
const toSeconds = (ms: number) => (ms > 0 ? Math.ceil(ms / 1000) : 0);
