import { normalizeIp } from '@nestjs/throttler';
import { ThrottleConfig } from '../../config/config.sections';
import { AppException } from '../errors/app.exception';

const IPV4 = /^(?:::ffff:)?(\d{1,3}(?:\.\d{1,3}){3})$/;

/** The general limit: one budget per client per window, across every route. */
export const GENERAL = 'general';

export function generalLimit(throttle: ThrottleConfig): { ttl: number; limit: number } {
  return { ttl: throttle.ttl * 1000, limit: throttle.limit };
}

/**
 * Who a request counts for, from its client IP (`req.ip`, which honours TRUST_PROXY only). IPv4,
 * plain or IPv6-mapped, is used as it is; other IPv6 is grouped by /64, so one client cannot
 * rotate through its subnet.
 */
export function clientTracker(ip: string): string {
  const v4 = IPV4.exec(ip);
  return v4 ? v4[1] : normalizeIp(ip);
}

/** The storage key of a limit's counter: the limit's name and the client only, never the route. */
export function budgetKey(name: string, tracker: string): string {
  return `${name}:${tracker}`;
}

/** The answer past a limit: the envelope's `RATE_LIMITED`, and `Retry-After` in whole seconds. */
export function rateLimited(secondsLeft: number): AppException {
  return new AppException('RATE_LIMITED', { retryAfter: Math.max(1, Math.ceil(secondsLeft)) });
}
