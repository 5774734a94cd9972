import { ExecutionContext, Injectable } from '@nestjs/common';
import { ThrottlerGuard, ThrottlerLimitDetail } from '@nestjs/throttler';
import { AppException } from '../errors/app.exception';

/** Answers an exceeded limit with the envelope, `RATE_LIMITED` and a standard `Retry-After`. */
@Injectable()
export class AppThrottlerGuard extends ThrottlerGuard {
  protected override throwThrottlingException(
    _context: ExecutionContext,
    detail: ThrottlerLimitDetail,
  ): Promise<void> {
    throw new AppException('RATE_LIMITED', {
      retryAfter: Math.max(1, Math.ceil(detail.timeToBlockExpire)),
    });
  }
}
