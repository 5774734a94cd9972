import { ExecutionContext, createParamDecorator } from '@nestjs/common';
import { HttpRequest } from './http-request';

/** Who sent a request, for the records a service makes about it (audit trail, log lines). */
export interface ClientInfo {
  ip: string;
  userAgent: string | undefined;
  /** The id in the request's log line and X-Request-Id header. */
  requestId: string;
}

/** What the tables keep of a user agent: its first 255 characters (audit trail, sessions). */
export const MAX_STORED_USER_AGENT = 255;

export function storedUserAgent(client: ClientInfo | undefined): string | null {
  return client?.userAgent?.slice(0, MAX_STORED_USER_AGENT) ?? null;
}

/**
 * The client of the request being handled, handed to services explicitly. (AsyncLocalStorage
 * would spare the parameters, but on Node 20 it slows every promise of every request; measured
 * in docs/performance.md.)
 */
export const Client = createParamDecorator(
  (_data: unknown, context: ExecutionContext): ClientInfo => {
    const request = context.switchToHttp().getRequest<HttpRequest>();
    return { ip: request.ip, userAgent: request.headers['user-agent'], requestId: request.id };
  },
);
