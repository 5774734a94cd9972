import { ExecutionContext, createParamDecorator } from '@nestjs/common';
import { HttpRequest } from './http-request';

/**
 * The session (`sid`, the refresh-token family) of the access token the route's guard accepted;
 * undefined when the request was authenticated otherwise (logout's refresh cookie).
 */
export const SessionId = createParamDecorator(
  (_data: unknown, context: ExecutionContext): string | undefined =>
    context.switchToHttp().getRequest<HttpRequest>().sessionId,
);

/**
 * The `auth_time` (epoch seconds) of the access token the route's guard accepted: when its
 * session was last authenticated; undefined for a token without one.
 */
export const AuthTime = createParamDecorator(
  (_data: unknown, context: ExecutionContext): number | undefined =>
    context.switchToHttp().getRequest<HttpRequest>().authTime,
);
