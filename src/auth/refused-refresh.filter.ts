import { ArgumentsHost, Catch, Injectable, Optional } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { AllExceptionsFilter } from '../common/errors/all-exceptions.filter';
import { AppException } from '../common/errors/app.exception';
import { HttpRequest } from '../common/http/http-request';
import { Metrics } from '../metrics/metrics.service';
import { AuthCookies } from './auth-cookies.service';
import { refreshToken } from './strategies/token-extractors';

/**
 * The refresh route's errors, answered as everywhere else, but a refused refresh token (expired,
 * forged or of the wrong kind, as the guard finds it; reused, ended or revoked, as the rotation
 * does) also clears the auth cookies: it is of no further use, and the browser must stop sending
 * it. Any other failure (the database unreachable, the rate limit, a foreign origin, a fault)
 * says nothing about the token, so the cookies stay and the session survives it. A filter, not
 * the handler, so the guard's refusals are seen too.
 */
@Catch()
@Injectable()
export class RefusedRefreshFilter extends AllExceptionsFilter {
  constructor(
    adapterHost: HttpAdapterHost,
    private readonly cookies: AuthCookies,
    @Optional() metrics?: Metrics,
  ) {
    super(adapterHost, metrics);
  }

  override catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    // Without a refresh token sent there is nothing to clear, and the access cookie may be good.
    if (
      exception instanceof AppException &&
      exception.code === 'INVALID_TOKEN' &&
      refreshToken(http.getRequest<HttpRequest>()) !== null
    ) {
      this.cookies.clear(http.getResponse());
    }
    super.catch(exception, host);
  }
}
