import { Injectable } from '@nestjs/common';
import { InjectThrottlerStorage, ThrottlerStorage } from '@nestjs/throttler';
import { ThrottleConfig } from '../../config/config.sections';
import { WELL_KNOWN_ROUTES } from '../../jwks/well-known.paths';
import { API_PREFIX } from '../../platform/api-prefix';
import { AppException } from '../errors/app.exception';
import { GENERAL, budgetKey, clientTracker, generalLimit, rateLimited } from './general-limit';

/**
 * The paths of the routes decisions.md leaves outside every limit (`SkipThrottle` on their
 * controllers: probes, metrics, public documents); a preflight to one is not counted either.
 */
const UNLIMITED_PATHS = new Set(
  [`${API_PREFIX}/health`, `${API_PREFIX}/health/ready`, 'metrics', ...WELL_KNOWN_ROUTES].map(
    (path) => `/${path}`.toLowerCase(),
  ),
);

/**
 * The general limit for requests no Nest route handles (an unknown path, a CORS preflight, the
 * API reference's platform routes): the throttler's guard never sees them, since Nest runs guards
 * on its matched routes only and CORS answers a preflight before routing. The platform asks here
 * instead, and the count is the guard's own (same storage, key, window and limit): an address has
 * one budget for everything.
 */
@Injectable()
export class UnroutedLimit {
  private readonly limit: { ttl: number; limit: number };

  constructor(
    @InjectThrottlerStorage() private readonly storage: ThrottlerStorage,
    throttle: ThrottleConfig,
  ) {
    this.limit = generalLimit(throttle);
  }

  /** Counts a request from `ip` to `path`; the `429 RATE_LIMITED` to answer when over. */
  async spend(ip: string, path: string): Promise<AppException | undefined> {
    if (UNLIMITED_PATHS.has(path.toLowerCase().replace(/(.)\/$/, '$1'))) return undefined;
    const { ttl, limit } = this.limit;
    const { isBlocked, timeToBlockExpire } = await this.storage.increment(
      budgetKey(GENERAL, clientTracker(ip)),
      ttl,
      limit,
      // The guard's block lasts the window when none is set.
      ttl,
      GENERAL,
    );
    return isBlocked ? rateLimited(timeToBlockExpire) : undefined;
  }
}
