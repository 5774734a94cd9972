import { ExecutionContext, createParamDecorator } from '@nestjs/common';
import { AppException } from '../common/errors/app.exception';
import { HttpRequest } from '../common/http/http-request';

/**
 * Non-browser clients send `X-Token-Delivery: body` to login or refresh and get the tokens in the
 * body (the contract's second login shape) instead of cookies.
 */
export const TOKEN_DELIVERY_HEADER = 'x-token-delivery';

export type TokenDeliveryMode = 'body' | 'cookies';

/**
 * A browser names the page's origin in `Origin` (every POST from a page carries it) and, to a
 * trustworthy origin, the relation in `Sec-Fetch-Site`. `Sec-Fetch-Mode` alone is no sign of a
 * browser: Node's own `fetch` sends it too.
 */
export function sentByBrowser(req: HttpRequest): boolean {
  return req.headers.origin !== undefined || req.headers['sec-fetch-site'] !== undefined;
}

/**
 * How a new session reaches its client: `body` when `X-Token-Delivery: body` asks for it (any
 * case), `cookies` otherwise. A browser never gets its refresh token in a body: a script on an
 * allowed origin (an XSS) could then read what the HttpOnly cookie keeps from it. Its request is
 * refused before anything starts, so no session is made that nobody holds.
 */
export const TokenDelivery = createParamDecorator(
  (_data: unknown, context: ExecutionContext): TokenDeliveryMode => {
    const req = context.switchToHttp().getRequest<HttpRequest>();
    const asked = req.headers[TOKEN_DELIVERY_HEADER];
    if (typeof asked !== 'string' || asked.trim().toLowerCase() !== 'body') return 'cookies';
    if (sentByBrowser(req)) {
      const message =
        'X-Token-Delivery: body is for non-browser clients; a browser keeps its tokens in HttpOnly cookies';
      throw new AppException('VALIDATION_ERROR', {
        message,
        details: [{ field: 'X-Token-Delivery', message }],
      });
    }
    return 'body';
  },
);
