import { ExecutionContext, Injectable, Type } from '@nestjs/common';
import { ModuleRef, Reflector } from '@nestjs/core';
import {
  InjectThrottlerOptions,
  InjectThrottlerStorage,
  ThrottlerGuard,
  ThrottlerLimitDetail,
  ThrottlerModuleOptions,
  ThrottlerRequest,
  ThrottlerStorage,
} from '@nestjs/throttler';
import { FEATURE_SWITCH, FeatureSwitch } from '../feature-switch/switched-by.decorator';
import { GENERAL, clientTracker, rateLimited } from './general-limit';
import { RouteMetadataCache } from './route-metadata.cache';

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
   * A route whose feature switch is off answers 404 as an absent route does, and is counted as
   * one: the general limit only (its switch guard runs after this global one). Counted under the
   * strict limit, it would end in 429 sooner than an absent route, and take the login budget.
   */
  protected override async handleRequest(request: ThrottlerRequest): Promise<boolean> {
    if (request.throttler.name !== GENERAL && this.switchedOff(request.context)) return true;
    return super.handleRequest(request);
  }

  /** The client IP, as every limit counts it (clientTracker). */
  protected override getTracker(req: Record<string, unknown>): Promise<string> {
    return Promise.resolve(clientTracker(typeof req.ip === 'string' ? req.ip : ''));
  }

  protected override throwThrottlingException(
    _context: ExecutionContext,
    detail: ThrottlerLimitDetail,
  ): Promise<void> {
    throw rateLimited(detail.timeToBlockExpire);
  }

  private switchedOff(context: ExecutionContext): boolean {
    const gate = this.reflector.getAllAndOverride<Type<FeatureSwitch> | undefined>(FEATURE_SWITCH, [
      context.getHandler(),
      context.getClass(),
    ]);
    return gate !== undefined && !this.moduleRef.get(gate, { strict: false }).enabled;
  }
}
