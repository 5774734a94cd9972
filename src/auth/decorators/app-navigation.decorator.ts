import { SetMetadata, applyDecorators } from '@nestjs/common';
import { ApiErrors } from '../../openapi/api-responses.decorator';

/** Set by `@AppNavigation()`; read by the access-token guard. */
export const APP_NAVIGATION = 'auth:app-navigation';

/**
 * A GET that changes something (starting to link an identity to the account): a top-level
 * navigation carries the `SameSite=Lax` access cookie from any site, so, signed in by that
 * cookie, it is taken only from the app's own pages (OriginPolicy.refusesNavigation), else 403
 * FORBIDDEN_ORIGIN, before the token is looked at. Use it beside `@Authenticated()`.
 */
export const AppNavigation = () =>
  applyDecorators(SetMetadata(APP_NAVIGATION, true), ApiErrors('FORBIDDEN_ORIGIN'));
