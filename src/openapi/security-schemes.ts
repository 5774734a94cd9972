import { applyDecorators } from '@nestjs/common';
import { ApiBearerAuth, ApiCookieAuth, ApiSecurity } from '@nestjs/swagger';

/** Security scheme names, declared in openapi.document.ts and referred to by the decorators. */
export const BEARER = 'bearer';
export const ACCESS_COOKIE_AUTH = 'accessCookie';
export const REFRESH_COOKIE_AUTH = 'refreshCookie';
export const METRICS_TOKEN_AUTH = 'metricsToken';

/** The access token, as a bearer header or the access_token cookie (either one). */
export const ApiAccessToken = () =>
  applyDecorators(ApiBearerAuth(BEARER), ApiCookieAuth(ACCESS_COOKIE_AUTH));

/** The refresh_token cookie. */
export const ApiRefreshCookie = () => ApiSecurity(REFRESH_COOKIE_AUTH);
