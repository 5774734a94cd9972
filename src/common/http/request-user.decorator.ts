import { ExecutionContext, createParamDecorator } from '@nestjs/common';
import { FastifyRequest } from 'fastify';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the passport guards. */
    user?: unknown;
  }
}

/** What the route's guard authenticated: the user for access tokens, the claims for refresh. */
export const RequestUser = createParamDecorator(
  (_data: unknown, context: ExecutionContext): unknown =>
    context.switchToHttp().getRequest<FastifyRequest>().user,
);
