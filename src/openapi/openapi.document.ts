import { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import {
  OperationObject,
  ResponseObject,
} from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { ACCESS_COOKIE, REFRESH_COOKIE } from '../auth/strategies/token-extractors';
import { operationId } from './operation-ids';
import {
  ACCESS_COOKIE_AUTH,
  BEARER,
  METRICS_TOKEN_AUTH,
  REFRESH_COOKIE_AUTH,
} from './security-schemes';

const DESCRIPTION = `Registers users, logs them in with email and password, issues JWT access and refresh
tokens in HTTP-only cookies (or in the body for non-browser clients), renews and revokes them, and
sends its own verification and password-reset emails.

Every answer is the envelope \`{ success, message, data?, error?, details? }\`, except the body-token
login and refresh shape and the JWK Set. Clients branch on \`error\`, one of the codes listed for each
response; every answer carries \`X-Request-Id\`, the id of its line in the service's log.`;

/** The document as served at /api/docs-json (api-docs.ts) and committed as openapi.json. */
export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Auth Service')
    .setDescription(DESCRIPTION)
    .setVersion('1')
    // Relative: the document is served by the service it describes, whatever its address; the
    // paths carry /api/v1 themselves because /metrics and /.well-known live outside it.
    .addServer('/', 'The service that serves this document')
    .addTag('auth', 'Registration, login, token refresh and checks, logout')
    .addTag('email', 'Email verification and password reset, their aliases and link pages')
    .addTag('users', 'The signed-in user')
    .addTag('admin', 'Administration of accounts (role admin)')
    .addTag(
      'organizations',
      'Organizations, their members and invitations (roles owner, admin, member)',
    )
    .addTag('tokens', 'Key set and metadata for services that verify access tokens')
    .addTag('operations', 'Liveness, readiness and Prometheus metrics')
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
    // addSecurity, not addBearerAuth: that one would call the token a JWT, and it is a secret.
    .addSecurity(METRICS_TOKEN_AUTH, {
      type: 'http',
      scheme: 'bearer',
      description: 'The METRICS_TOKEN the service is configured with (an opaque secret).',
    })
    .build();
  const document = SwaggerModule.createDocument(app, config, {
    operationIdFactory: (controller, method) => operationId(controller, method),
  });
  requireDeclaredSecurity(document);
  addAnswerHeaders(document);
  return document;
}

/** Every route sets it (request-id.ts), errors and unknown routes included. */
const REQUEST_ID_HEADER = 'X-Request-Id';
/** Every answer but the public documents' (security-headers.ts). */
const CACHE_CONTROL_HEADER = 'Cache-Control';
/** On the 401s of routes that take an access token (token.guard.ts). */
const CHALLENGE_HEADER = 'WWW-Authenticate';

const ANSWER_HEADERS = {
  [REQUEST_ID_HEADER]: {
    description:
      "The request's id, as in every line the service logs about it: quote it when reporting a problem.",
    schema: { type: 'string' },
  },
  [CACHE_CONTROL_HEADER]: {
    description: 'No answer of the API may be kept by a cache: tokens, users, sessions.',
    schema: { type: 'string', enum: ['no-store'] },
  },
  [CHALLENGE_HEADER]: {
    description:
      'RFC 6750: `Bearer` when no access token came, `Bearer error="invalid_token", ' +
      'error_description="…"` when one was refused.',
    schema: { type: 'string' },
  },
};

function addAnswerHeaders(document: OpenAPIObject): void {
  document.components = {
    ...document.components,
    headers: { ...document.components?.headers, ...ANSWER_HEADERS },
  };
  const ref = (name: string) => ({ $ref: `#/components/headers/${name}` });
  for (const operation of operations(document)) {
    const bearer = operation.security?.some((entry) => BEARER in entry) ?? false;
    for (const [status, response] of Object.entries(operation.responses) as Array<
      [string, ResponseObject]
    >) {
      response.headers = {
        [REQUEST_ID_HEADER]: ref(REQUEST_ID_HEADER),
        [CACHE_CONTROL_HEADER]: ref(CACHE_CONTROL_HEADER),
        ...(bearer && status === '401' ? { [CHALLENGE_HEADER]: ref(CHALLENGE_HEADER) } : {}),
        ...response.headers,
      };
    }
  }
}

/** A route that names no scheme would read as public: say which, or `@Public()`. */
function requireDeclaredSecurity(document: OpenAPIObject): void {
  // `@Public()` alone leaves `[]`; beside a scheme, the scheme is what the route takes.
  for (const operation of operations(document)) {
    operation.security = operation.security?.filter((entry) => Object.keys(entry).length > 0);
  }
  const undeclared = operations(document)
    .filter((operation) => operation.security === undefined)
    .map((operation) => operation.operationId);
  if (undeclared.length > 0) {
    throw new Error(`Declare the credentials of ${undeclared.join(', ')} (or @Public())`);
  }
}

function operations(document: OpenAPIObject): OperationObject[] {
  return Object.values(document.paths).flatMap((item) =>
    (['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const)
      .map((method) => item[method])
      .filter((operation): operation is OperationObject => operation !== undefined),
  );
}
