import { ExecutionContext, Injectable, Type } from '@nestjs/common';
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

type Target = Type | ((...args: never[]) => unknown);

/**
 * The throttler reads a dozen metadata entries (skip, limit, ttl… per named limit) on every
 * request; a route's decorators never change once the app runs, so each answer is kept, per
 * handler, class and key. Every other method is Nest's own.
 */
class RouteMetadataCache extends Reflector {
  private readonly answers = new WeakMap<Target, Map<Target, Map<unknown, unknown>>>();

  constructor(private readonly reflector: Reflector) {
    super();
  }

  override getAllAndOverride<TResult = unknown, TKey = unknown>(
    key: TKey,
    targets: Target[],
  ): TResult {
    if (targets.length !== 2) return this.reflector.getAllAndOverride(key, targets);
    const [handler, owner] = targets;
    let byOwner = this.answers.get(handler);
    if (!byOwner) this.answers.set(handler, (byOwner = new Map<Target, Map<unknown, unknown>>()));
    let byKey = byOwner.get(owner);
    if (!byKey) byOwner.set(owner, (byKey = new Map<unknown, unknown>()));
    if (!byKey.has(key)) byKey.set(key, this.reflector.getAllAndOverride(key, targets));
    return byKey.get(key) as TResult;
  }
}
