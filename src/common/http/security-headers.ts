import { FastifyCorsOptions } from '@fastify/cors';
import { FastifyInstance } from 'fastify';
import { REQUEST_ID_HEADER } from '../../logging/request-id';

/**
 * Headers for a JSON API rather than for web pages: nothing may render, frame or load from a
 * response (`default-src 'none'`), no MIME sniffing, no referrer, HTTPS remembered. Set on every
 * answer, errors and 404s included; the link pages replace the policy with their own. `Vary:
 * Origin` is always there because the CORS answer does differ by origin.
 */
export const API_SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-security-policy': "default-src 'none';frame-ancestors 'none'",
  'strict-transport-security': 'max-age=31536000; includeSubDomains',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  vary: 'Origin',
});

/**
 * The headers every answer carries: the ones above, and the request's id (the id of its log line,
 * for a client to quote). One hook for both: each hook Fastify runs costs on every request.
 */
export function registerAnswerHeaders(fastify: FastifyInstance): void {
  fastify.addHook('onRequest', (request, reply, done) => {
    reply.headers(API_SECURITY_HEADERS).header(REQUEST_ID_HEADER, request.id);
    done();
  });
}

/**
 * Credentialed CORS for the configured origins. Any other origin, or none (servers, curl), gets
 * no CORS headers at all, and its preflight is a 404.
 */
export function corsOptions(origins: readonly string[]): FastifyCorsOptions {
  const allowed = new Set(origins);
  return {
    origin: (origin, callback) =>
      callback(null, origin !== undefined && allowed.has(origin) ? origin : false),
    credentials: true,
    methods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
    allowedHeaders: ['Content-Type', 'Accept', 'Authorization', 'X-Token-Delivery'],
    // X-Request-Id: a page can quote it in a bug report; the service's log line has the same id.
    exposedHeaders: ['Retry-After', 'X-Request-Id'],
    maxAge: 600,
    // A preflight without Access-Control-Request-Method is answered like any other, not with a
    // plain-text 400.
    strictPreflight: false,
  };
}
