import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { ThrottlerModule } from '@nestjs/throttler';
import { ConfigSectionsModule } from '../../config/config.module';
import { ThrottleConfig } from '../../config/config.sections';
import { RedisModule } from '../../redis/redis.module';
import { RedisService } from '../../redis/redis.service';
import { AppThrottlerGuard } from './app-throttler.guard';
import { GENERAL, budgetKey, generalLimit } from './general-limit';
import { SharedThrottlerStorage } from './shared-throttler.storage';
import { SlidingWindowStorage } from './sliding-window.storage';
import { isStrictlyThrottled } from './strict-throttle.decorator';
import { UnroutedLimit } from './unrouted-limit';

/**
 * The throttler keys its counters by class, handler and name unless told otherwise; here the key is
 * the limit's name and the client IP only, so the general limit is one budget per IP across the
 * whole API and the strict limit one budget per IP across every auth route, alias and spelling.
 * The client IP is `req.ip`, which honours only the proxies named in TRUST_PROXY. Requests no
 * route handles (unknown paths, preflights) count through UnroutedLimit, which the platform asks.
 */
@Module({
  imports: [
    ConfigSectionsModule,
    ThrottlerModule.forRootAsync({
      imports: [ConfigSectionsModule, RedisModule],
      inject: [ThrottleConfig, RedisService],
      useFactory: (throttle: ThrottleConfig, redis: RedisService) => ({
        // With several instances (REDIS_URL) the budgets are shared; alone, counted in process.
        storage: redis.enabled
          ? new SharedThrottlerStorage(redis, new SlidingWindowStorage())
          : new SlidingWindowStorage(),
        setHeaders: false,
        generateKey: (_context, tracker, name) => budgetKey(name, tracker),
        throttlers: [
          { name: GENERAL, ...generalLimit(throttle) },
          {
            name: 'auth',
            ttl: throttle.ttl * 1000,
            limit: throttle.authLimit,
            skipIf: (context) => !isStrictlyThrottled(context),
          },
        ],
      }),
    }),
  ],
  providers: [{ provide: APP_GUARD, useClass: AppThrottlerGuard }, UnroutedLimit],
  exports: [UnroutedLimit],
})
export class ThrottlingModule {}
