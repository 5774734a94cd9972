import { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { ACCESS_COOKIE, REFRESH_COOKIE } from '../auth/strategies/token-extractors';
import {
  ACCESS_COOKIE_AUTH,
  BEARER,
  METRICS_TOKEN_AUTH,
  REFRESH_COOKIE_AUTH,
} from './security-schemes';

export const DOCS_PATH = 'api/docs';
export const DOCS_JSON_PATH = 'api/docs-json';

const DESCRIPTION = `Registers users, logs them in with email and password, issues JWT access and refresh
tokens in HTTP-only cookies (or in the body for non-browser clients), renews and revokes them, and
sends its own verification and password-reset emails.

Every answer is the envelope \`{ success, message, data?, error?, details? }\`, except the body-token
login and refresh shape and the JWK Set. Clients branch on \`error\`, one of the codes listed for each
response; every answer carries \`X-Request-Id\`, the id of its line in the service's log.`;

/** The document as served at /api/docs-json and committed as openapi.json. */
export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Auth Service')
    .setDescription(DESCRIPTION)
    .setVersion('1')
    .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' }, BEARER)
    .addCookieAuth(
      ACCESS_COOKIE,
      { type: 'apiKey', in: 'cookie', description: 'Set by login and refresh.' },
      ACCESS_COOKIE_AUTH,
    )
    .addCookieAuth(
      REFRESH_COOKIE,
      {
        type: 'apiKey',
        in: 'cookie',
        description: 'Set by login and refresh, sent only to /api/v1/auth.',
      },
      REFRESH_COOKIE_AUTH,
    )
    .addBearerAuth(
      {
        type: 'http',
        scheme: 'bearer',
        description: 'The METRICS_TOKEN the service is configured with.',
      },
      METRICS_TOKEN_AUTH,
    )
    .build();
  return SwaggerModule.createDocument(app, config, {
    operationIdFactory: (controller, method) =>
      `${controller.replace(/Controller$/, '')}_${method}`,
  });
}

/**
 * Swagger UI at /api/docs and the document at /api/docs-json, built on first request. The UI is a
 * web page: the platform files give its routes a policy that lets it load its own scripts and
 * styles; every other answer keeps `default-src 'none'`.
 */
export function serveApiDocs(app: INestApplication): void {
  SwaggerModule.setup(DOCS_PATH, app, () => buildOpenApiDocument(app), {
    jsonDocumentUrl: DOCS_JSON_PATH,
    // JSON only: the YAML route would serialise the whole document again on every request.
    raw: ['json'],
    customSiteTitle: 'Auth Service API',
  });
}
