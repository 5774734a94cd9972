import { ExecutionContext, createParamDecorator } from '@nestjs/common';
import { HttpRequest } from './http-request';

/** What the route's guard authenticated: the user for access tokens, the claims for refresh. */
export const RequestUser = createParamDecorator(
  (_data: unknown, context: ExecutionContext): unknown =>
    context.switchToHttp().getRequest<HttpRequest>().user,
);
