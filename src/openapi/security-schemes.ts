import { applyDecorators } from '@nestjs/common';
import { ApiBearerAuth, ApiCookieAuth, ApiSecurity } from '@nestjs/swagger';

/** Security scheme names, declared in openapi.document.ts and referred to by the decorators. */
export const BEARER = 'bearer';
export const ACCESS_COOKIE_AUTH = 'accessCookie';
export const REFRESH_COOKIE_AUTH = 'refreshCookie';
export const METRICS_TOKEN_AUTH = 'metricsToken';
/** OpenAPI's requirement that names no scheme: no credentials needed. */
const NO_CREDENTIALS = {};

/** The access token, as a bearer header or the access_token cookie (either one). */
export const ApiAccessToken = () =>
  applyDecorators(ApiBearerAuth(BEARER), ApiCookieAuth(ACCESS_COOKIE_AUTH));

/** The refresh_token cookie. */
export const ApiRefreshCookie = () => ApiSecurity(REFRESH_COOKIE_AUTH);

/**
 * A route anyone may call: `security: []` in the document. The document is built only when every
 * operation says which credentials it takes (or this), so a guarded route whose scheme was
 * forgotten cannot pass for a public one. It is written as OpenAPI's empty requirement (`{}`,
 * no credentials), which Swagger keeps where it drops an empty list; the document builder turns
 * it into `[]`, or drops it beside a scheme a guarded route of a public controller names.
 */
export const ApiPublic = () => ApiSecurity(NO_CREDENTIALS);
