import { ExecutionContext, Injectable, Type } from '@nestjs/common';
import { ModuleRef, Reflector } from '@nestjs/core';
import {
  InjectThrottlerOptions,
  InjectThrottlerStorage,
  ThrottlerGuard,
  ThrottlerLimitDetail,
  ThrottlerModuleOptions,
  ThrottlerStorage,
} from '@nestjs/throttler';
import { AppException } from '../errors/app.exception';
import { FEATURE_SWITCH, FeatureSwitch } from '../feature-switch/switched-by.decorator';
import { RouteMetadataCache } from './route-metadata.cache';

const IPV4 = /^(?:::ffff:)?(\d{1,3}(?:\.\d{1,3}){3})$/;

/** Answers an exceeded limit with the envelope, `RATE_LIMITED` and a standard `Retry-After`. */
@Injectable()
export class AppThrottlerGuard extends ThrottlerGuard {
  constructor(
    @InjectThrottlerOptions() options: ThrottlerModuleOptions,
    @InjectThrottlerStorage() storage: ThrottlerStorage,
    reflector: Reflector,
    private readonly moduleRef: ModuleRef,
  ) {
    super(options, storage, new RouteMetadataCache(reflector));
  }

  /**
   * A route whose feature switch is off is not counted: it answers 404 as an absent route does,
   * and an absent route spends no budget (its switch guard runs after this global one).
   */
  protected override async shouldSkip(context: ExecutionContext): Promise<boolean> {
    if (await super.shouldSkip(context)) return true;
    const gate = this.reflector.getAllAndOverride<Type<FeatureSwitch> | undefined>(FEATURE_SWITCH, [
      context.getHandler(),
      context.getClass(),
    ]);
    return gate !== undefined && !this.moduleRef.get(gate, { strict: false }).enabled;
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
