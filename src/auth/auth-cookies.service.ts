import { Injectable } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { AppException } from '../common/errors/app.exception';
import { CookieConfig, HttpPlatform } from '../config/config.sections';
import { CookieAttributes, setCookie } from '../platform/response-cookies';
import { SessionTokens } from '../tokens/access-tokens.service';
import { ACCESS_COOKIE, REFRESH_COOKIE } from './strategies/token-extractors';

/** The refresh token is sent only to the auth routes, never with the app's other requests. */
export const REFRESH_COOKIE_PATH = '/api/v1/auth';

/** The one place that writes and clears the auth cookies, on either platform. */
@Injectable()
export class AuthCookies {
  constructor(
    private readonly cookies: CookieConfig,
    private readonly adapterHost: HttpAdapterHost,
  ) {}

  /** `response`: the platform's response, as `@Res({ passthrough: true })` hands it over. */
  set(response: unknown, tokens: SessionTokens): void {
    const platform = this.platform();
    setCookie(
      platform,
      response,
      ACCESS_COOKIE,
      tokens.accessToken,
      this.attributes('/'),
      tokens.accessExpiresIn,
    );
    setCookie(
      platform,
      response,
      REFRESH_COOKIE,
      tokens.refreshToken,
      this.attributes(REFRESH_COOKIE_PATH),
      tokens.refreshExpiresIn,
    );
  }

  /**
   * After a failed refresh: a refused refresh token (expired, forged, of the wrong kind, reused,
   * ended or revoked) is of no further use, and the browser must stop sending it. Any other
   * failure (the database unreachable, the rate limit, a foreign origin, a fault) says nothing
   * about the token: the cookies stay, and a passing fault signs no one out.
   */
  clearIfRefused(response: unknown, error: unknown): void {
    if (error instanceof AppException && error.code === 'INVALID_TOKEN') this.clear(response);
  }

  clear(response: unknown): void {
    const platform = this.platform();
    setCookie(platform, response, ACCESS_COOKIE, '', this.attributes('/'), 0);
    setCookie(platform, response, REFRESH_COOKIE, '', this.attributes(REFRESH_COOKIE_PATH), 0);
  }

  private platform(): HttpPlatform {
    return this.adapterHost.httpAdapter.getType() as HttpPlatform;
  }

  private attributes(path: string): CookieAttributes {
    return {
      httpOnly: true,
      secure: this.cookies.secure,
      sameSite: this.cookies.sameSite,
      path,
    };
  }
}
