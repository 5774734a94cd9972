import { Injectable, OnApplicationShutdown } from '@nestjs/common';
import { createHash, randomUUID } from 'node:crypto';
import { AppException } from '../common/errors/app.exception';
import { SlidingWindowStorage } from '../common/throttling/sliding-window.storage';
import { MailConfig } from '../config/config.sections';
import { EmailKind, Metrics } from '../metrics/metrics.service';
import { RedisService } from '../redis/redis.service';
import { normalizeEmail } from '../users/identity.normalizer';

/** The mails a request can make the service send to an address; notices of changes are not. */
export type CappedMail = Extract<
  EmailKind,
  'verification' | 'password_reset' | 'email_change' | 'email_code' | 'invitation'
>;

/**
 * The rule SlidingWindowStorage applies in process without a block period, atomically in Redis:
 * forget the sends older than the window; while `limit` remain, refuse (uncounted) and answer the
 * milliseconds until the oldest leaves; else record this send and answer 0.
 * KEYS: the address's sends. ARGV: now (ms), window (ms), limit, a member unique to this send.
 */
const TAKE = `
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then
  local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  return tonumber(oldest[2]) + window - now
end
redis.call('ZADD', KEYS[1], now, ARGV[4])
redis.call('PEXPIRE', KEYS[1], window)
return 0
`;

/**
 * At most MAIL_RECIPIENT_LIMIT mails of one kind per normalised address in any
 * MAIL_RECIPIENT_WINDOW seconds, whoever asks for them, so that nobody can fill an inbox (or
 * keep retiring its reset links) by asking from many addresses. A slot is taken before anything
 * is written for the mail, and kept whether or not the transport then accepts it: the cap bounds
 * attempts to mail an address.
 *
 * With REDIS_URL the count is shared by every instance. The request limits' shared store counts
 * in fixed windows, which lets twice the limit through around a window's end, and cannot run
 * without a block period; so this one keeps a true sliding window in Redis, as its in-process
 * store (the throttler's own SlidingWindowStorage) does. Without Redis, or while it is down,
 * each instance counts alone.
 */
@Injectable()
export class MailRecipientCap implements OnApplicationShutdown {
  private readonly local = new SlidingWindowStorage();

  constructor(
    private readonly redis: RedisService,
    private readonly config: MailConfig,
    private readonly metrics: Metrics,
  ) {}

  /**
   * Takes one of the address's slots for this kind of mail, or answers 429 RATE_LIMITED with the
   * seconds until one frees. `sent` names the mail in the metrics when it is not `kind` itself.
   */
  async take(kind: CappedMail, address: string, sent: EmailKind = kind): Promise<void> {
    const wait = await this.reserve(kind, address, sent);
    if (wait > 0) {
      throw new AppException('RATE_LIMITED', {
        message: 'Too many emails to this address, try again later',
        retryAfter: wait,
      });
    }
  }

  /** As `take`, for a caller that goes on without the mail: 0 once a slot is taken, else seconds. */
  async reserve(kind: CappedMail, address: string, sent: EmailKind = kind): Promise<number> {
    // Hashed: the counters need no one's address in Redis or in memory.
    const digest = createHash('sha256').update(normalizeEmail(address)).digest('base64url');
    const wait = await this.secondsToWait(`mail-cap:${kind}:${digest}`);
    if (wait > 0) this.metrics.email(sent, 'capped');
    return wait;
  }

  onApplicationShutdown(): void {
    this.local.onApplicationShutdown();
  }

  private async secondsToWait(key: string): Promise<number> {
    const windowMs = this.config.recipientWindow * 1000;
    const limit = this.config.recipientLimit;
    const client = this.redis.client;
    if (client && this.redis.ready) {
      try {
        const ms = Number(
          await client.eval(TAKE, 1, key, Date.now(), windowMs, limit, randomUUID()),
        );
        return ms > 0 ? Math.ceil(ms / 1000) : 0;
      } catch (error) {
        this.redis.failed(error);
      }
    }
    const record = await this.local.increment(key, windowMs, limit, 0, 'mail');
    return record.isBlocked ? Math.max(1, record.timeToBlockExpire) : 0;
  }
}
