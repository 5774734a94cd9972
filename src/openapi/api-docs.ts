import { INestApplication } from '@nestjs/common';
import { SwaggerModule } from '@nestjs/swagger';
import { API_PREFIX } from '../platform/api-prefix';
import { buildOpenApiDocument } from './openapi.document';

/** The interactive API reference (Swagger UI), beside the API it describes. */
export const DOCS_PATH = `${API_PREFIX}/docs`;
/** The OpenAPI document, as committed in openapi.json. */
export const DOCS_JSON_PATH = 'api/docs-json';

/**
 * Swagger UI at /api/v1/docs and the document at /api/docs-json, built once on first request: the
 * page shows the very document the JSON route serves. Its files come from swagger-ui-dist, served
 * by the service itself. Both are raw platform routes, so no guard runs on them and the document
 * does not list them; the platform files give the page its content policy and count visits.
 */
export function serveApiDocs(app: INestApplication): void {
  SwaggerModule.setup(DOCS_PATH, app, () => buildOpenApiDocument(app), {
    jsonDocumentUrl: DOCS_JSON_PATH,
    // JSON only: the YAML route would serialise the whole document again on every request.
    raw: ['json'],
    customSiteTitle: 'Auth Service API',
    // Swagger UI's default sends the document's address to validator.swagger.io for a badge.
    swaggerOptions: { validatorUrl: null },
  });
}

/** A path (without its query) as both platforms route it: case aside, a trailing slash ignored. */
function routed(path: string): string {
  return path.toLowerCase().replace(/(.)\/$/, '$1');
}

const PAGE = `/${DOCS_PATH}`;

/** The page and its own files (init script, Swagger UI's scripts, styles and icons). */
export function isApiDocsPage(path: string): boolean {
  const route = routed(path);
  return route === PAGE || route.startsWith(`${PAGE}/`);
}

const VISITS = new Set([PAGE, `${PAGE}/index.html`, `/${DOCS_JSON_PATH}`]);

/**
 * What spends from the general rate limit: the page and the document. The page's files come with
 * each view; counting them too would make one view cost seven requests of an address's budget.
 */
export function isApiDocsVisit(path: string): boolean {
  return VISITS.has(routed(path));
}
