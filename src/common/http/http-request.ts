import { IncomingHttpHeaders } from 'node:http';

/**
 * What the service reads of a request, the same on Express and Fastify: guards, decorators and
 * services take this, never a platform's own request type (src/platform is the only place that
 * knows which one serves).
 */
export interface HttpRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  /** The client's address, as far as TRUST_PROXY lets a proxy name it. */
  readonly ip: string;
  /** The id of the request's log line and its `X-Request-Id` answer header. */
  readonly id: string;
  /** Parsed cookies; a value is not trusted to be a string (cookie-parser's `j:` values). */
  readonly cookies?: Record<string, unknown>;
  /** Set by the passport guards: the user for access tokens, the claims for refresh. */
  user?: unknown;
  /** Set by the access-token strategy: the session (`sid`) the accepted token belongs to. */
  sessionId?: string;
  /** Set by the access-token strategy: the token's `auth_time` (epoch seconds), if it has one. */
  authTime?: number;
  /** Set by the access-token strategy: the token's `amr` (how its session was authenticated). */
  amr?: readonly string[];
  /** Set by the access-token strategy: the accepted token's `exp` (epoch seconds). */
  accessExpiresAt?: number;
}

/**
 * The platform's response object, as `@Res({ passthrough: true })` hands it over: code outside
 * src/platform passes it to `HttpAdapterHost` or `AuthCookies` and never touches it itself.
 */
export type HttpResponse = object;
