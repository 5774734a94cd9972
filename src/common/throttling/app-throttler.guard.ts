import { ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import {
  InjectThrottlerOptions,
  InjectThrottlerStorage,
  ThrottlerGuard,
  ThrottlerLimitDetail,
  ThrottlerModuleOptions,
  ThrottlerStorage,
} from '@nestjs/throttler';
import { AppException } from '../errors/app.exception';
import { RouteMetadataCache } from './route-metadata.cache';

const IPV4 = /^(?:::ffff:)?(\d{1,3}(?:\.\d{1,3}){3})$/;

/** Answers an exceeded limit with the envelope, `RATE_LIMITED` and a standard `Retry-After`. */
@Injectable()
export class AppThrottlerGuard extends ThrottlerGuard {
  constructor(
    @InjectThrottlerOptions() options: ThrottlerModuleOptions,
    @InjectThrottlerStorage() storage: ThrottlerStorage,
    reflector: Reflector,
  ) {
    super(options, storage, new RouteMetadataCache(reflector));
  }

  /**
   * The client IP (`req.ip`, which honours TRUST_PROXY only). IPv4, plain or IPv6-mapped, is used
   * as it is; other IPv6 goes through the throttler's own /64 grouping, so one client cannot
   * rotate through its subnet.
   */
  protected override getTracker(req: Record<string, unknown>): Promise<string> {
    const ip = typeof req.ip === 'string' ? req.ip : '';
    const v4 = IPV4.exec(ip);
    return v4 ? Promise.resolve(v4[1]) : super.getTracker(req);
  }

  protected override throwThrottlingException(
    _context: ExecutionContext,
    detail: ThrottlerLimitDetail,
  ): Promise<void> {
    throw new AppException('RATE_LIMITED', {
      retryAfter: Math.max(1, Math.ceil(detail.timeToBlockExpire)),
    });
  }
}
