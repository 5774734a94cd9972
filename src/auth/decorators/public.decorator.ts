import { SetMetadata, applyDecorators } from '@nestjs/common';
import { ApiPublic } from '../../openapi/security-schemes';

/** Set by `@Public()`; read by the global AuthenticationGuard on the handler, then the class. */
export const IS_PUBLIC_KEY = 'auth:public';

/**
 * A route (or controller) anyone may call: the global guard asks for no token, and the document
 * says `security: []` (unless the route names a scheme of its own, as /metrics does). Every
 * other route needs a signed-in user.
 */
export const Public = () => applyDecorators(SetMetadata(IS_PUBLIC_KEY, true), ApiPublic());
