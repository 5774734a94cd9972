import { CorsOptions } from '@nestjs/common/interfaces/external/cors-options.interface';
import { WELL_KNOWN_ROUTES } from '../jwks/well-known.paths';

/**
 * Headers for a JSON API rather than for web pages: nothing may render, frame or load from a
 * response (`default-src 'none'`), no MIME sniffing, no referrer, HTTPS remembered, and nothing
 * kept by a cache (tokens, users and sessions are personal). Set on every answer, errors and 404s
 * included; the link pages and the API reference replace the policy with their own, the public
 * documents (JWKS, metadata) the caching. `Vary: Origin` is always there because the CORS answer
 * does differ by origin.
 */
export const API_SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-security-policy': "default-src 'none';frame-ancestors 'none'",
  'strict-transport-security': 'max-age=31536000; includeSubDomains',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
  vary: 'Origin',
});

/**
 * The API reference (Swagger UI) is a web page: it may load its own scripts, styles and images and
 * call the API it describes, nothing from elsewhere. Inline styles only because Swagger UI's page
 * carries `<style>` blocks and `style` attributes; its scripts are all files, so none runs inline.
 */
export const API_DOCS_SECURITY_POLICY =
  "default-src 'self';img-src 'self' data:;style-src 'self' 'unsafe-inline';frame-ancestors 'none'";

/**
 * Credentialed CORS for the configured origins, in the terms both `cors` (Express) and
 * `@fastify/cors` take. Any other origin, or none (servers, curl), gets no CORS headers at all,
 * and its preflight is a 404.
 */
function corsOptions(origins: readonly string[]): CorsOptions {
  const allowed = new Set(origins);
  return {
    origin: (origin, callback) =>
      callback(null, origin !== undefined && allowed.has(origin) ? origin : false),
    credentials: true,
    // Written as the headers' values: `cors` and `@fastify/cors` join lists differently.
    methods: 'GET, POST, PUT, PATCH, DELETE, OPTIONS',
    // Not X-Token-Delivery: a page's script must never be able to ask for the tokens in a body.
    allowedHeaders: 'Content-Type, Accept, Authorization',
    // X-Request-Id: a page can quote it in a bug report; the service's log line has the same id.
    exposedHeaders: 'Retry-After, X-Request-Id',
    maxAge: 600,
  };
}

/**
 * The public documents (the JWKS, the server metadata) hold nothing personal: any page may read
 * them, without credentials, as verifiers running in a browser expect.
 */
const PUBLIC_DOCUMENT_CORS: CorsOptions = { origin: '*', methods: 'GET, HEAD', maxAge: 600 };

const PUBLIC_DOCUMENTS = new Set(WELL_KNOWN_ROUTES.map((route) => `/${route}`.toLowerCase()));

/**
 * The CORS options for a request's path (without its query), as both platforms route it: case
 * aside and a trailing slash ignored.
 */
export function corsOptionsFor(origins: readonly string[]): (path: string) => CorsOptions {
  const api = corsOptions(origins);
  return (path) =>
    PUBLIC_DOCUMENTS.has(path.toLowerCase().replace(/(.)\/$/, '$1')) ? PUBLIC_DOCUMENT_CORS : api;
}
