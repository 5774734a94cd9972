import { ExecutionContext, SetMetadata } from '@nestjs/common';

const STRICT_THROTTLE = Symbol('strictThrottle');

/**
 * Puts a route under the strict authentication limit (5 per 15 minutes per IP by default). Every
 * route marked here draws from one shared budget per IP, aliases included.
 */
export const StrictThrottle = (): MethodDecorator & ClassDecorator =>
  SetMetadata(STRICT_THROTTLE, true);

export function isStrictlyThrottled(context: ExecutionContext): boolean {
  return Reflect.getMetadata(STRICT_THROTTLE, context.getHandler()) === true;
}
