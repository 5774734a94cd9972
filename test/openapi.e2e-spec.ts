import { ConsoleLogger } from '@nestjs/common';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ERROR_CATALOGUE, ErrorCode } from '../src/common/errors/error-codes';
import { PASSWORD, registerUser, uniqueUser } from './support/auth-helpers';
import { lintOpenApi } from './support/openapi-lint';
import { TestApp, startTestApp } from './support/test-app';

interface Operation {
  operationId: string;
  description?: string;
  tags: string[];
  responses: Record<
    string,
    {
      content?: Record<string, { schema: Schema }>;
      headers?: Record<string, { $ref?: string; schema?: { enum?: string[] } }>;
    }
  >;
  security?: Array<Record<string, string[]>>;
  parameters?: Array<{ name: string; in: string; required?: boolean; schema?: { type?: string } }>;
  requestBody?: { required?: boolean };
}
interface Schema {
  allOf?: Array<{ properties?: { error?: { enum: string[] } } }>;
  oneOf?: Array<{ $ref: string }>;
  required?: string[];
  properties?: Record<string, { format?: string }>;
}
type Paths = Record<string, Record<string, Operation>>;

const OPENAPI_FILE = join(__dirname, '..', 'openapi.json');
const COMMITTED = JSON.parse(readFileSync(OPENAPI_FILE, 'utf8')) as {
  paths: Paths;
  tags: Array<{ name: string; description?: string }>;
  servers: Array<{ url: string }>;
  components: { securitySchemes: Record<string, object>; schemas: Record<string, Schema> };
};
const OPERATIONS = Object.entries(COMMITTED.paths).flatMap(([path, operations]) =>
  Object.entries(operations).map(([method, operation]) => ({ path, method, operation })),
);

describe('OpenAPI', () => {
  let t: TestApp;
  /** Every route the service answers, as Nest mapped it on the platform. */
  const served: Array<{ method: string; url: string }> = [];

  beforeAll(async () => {
    t = await startTestApp({}, { logger: new RouteRecorder(served) });
  });
  afterAll(() => t.close());

  it('serves the committed openapi.json (run `npm run openapi` after changing the API)', async () => {
    const response = await t.http().get('/api/docs-json').expect(200);
    expect(response.body).toEqual(COMMITTED);
  });

  it('documents every route the service answers, aliases included, and nothing else', () => {
    const documented = Object.entries(COMMITTED.paths).flatMap(([path, operations]) =>
      Object.keys(operations).map((method) => `${method.toUpperCase()} ${path}`),
    );
    const answered = served
      .filter(({ method, url }) => method !== 'HEAD' && method !== 'OPTIONS' && !isDocs(url))
      // Nest maps `:id`; the document names it `{id}`.
      .map(({ method, url }) => `${method} ${url.replace(/:(\w+)/g, '{$1}')}`);
    expect(new Set(documented)).toEqual(new Set(answered));
    // The aliases decisions.md lists, each its own documented path.
    for (const alias of ['/email/verify', '/email/reset', '/email/forgot-password']) {
      expect(COMMITTED.paths[`/api/v1${alias}`]?.post).toBeDefined();
    }
  });

  it("lists each error under the catalogue's status, in the envelope", () => {
    const allowedElsewhere: Record<string, number[]> = {
      // decisions.md: a malformed login body, an invalid registration.
      LOGIN_FAILED: [400],
      REGISTRATION_FAILED: [400],
    };
    let checked = 0;
    for (const operations of Object.values(COMMITTED.paths)) {
      for (const operation of Object.values(operations)) {
        for (const [status, response] of Object.entries(operation.responses)) {
          if (Number(status) < 400) continue;
          const codes = errorCodesOf(response);
          expect(codes?.length).toBeGreaterThan(0);
          for (const code of codes ?? []) {
            const expected = [
              ERROR_CATALOGUE[code as ErrorCode].status,
              ...(allowedElsewhere[code] ?? []),
            ];
            expect(expected).toContain(Number(status));
            checked += 1;
          }
        }
      }
    }
    expect(checked).toBeGreaterThan(100);
    // Every rate-limited route says so, with Retry-After; and every 503, an outage passing.
    const login = COMMITTED.paths['/api/v1/auth/login'].post;
    expect(login.responses['429'].headers).toHaveProperty('Retry-After');
    const unavailable = OPERATIONS.map(({ operation }) => operation.responses['503']).filter(
      (response) => response !== undefined,
    );
    expect(unavailable.length).toBeGreaterThan(30);
    for (const response of unavailable) expect(response.headers).toHaveProperty('Retry-After');
  });

  it('documents what each route really answers: a bare request and a body that is not JSON', async () => {
    const undocumented: string[] = [];
    /** Routes documented as taking no credentials that refused a request without any. */
    const notPublic: string[] = [];
    let probes = 0;
    for (const [path, operations] of Object.entries(COMMITTED.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        const requests =
          method === 'post' || method === 'patch' || method === 'delete'
            ? [
                t.http()[method](path).send({}),
                t.http()[method](path).set('Content-Type', 'text/plain').send('plain text'),
              ]
            : // GET, and the other methods without a body (DELETE).
              [t.http()[method as 'get' | 'delete'](path)];
        for (const response of await Promise.all(requests)) {
          probes += 1;
          const documented = operation.responses[String(response.status)];
          const body = response.body as { error?: string };
          const codes = documented && errorCodesOf(documented);
          const fits =
            documented !== undefined &&
            (response.status < 400 || (body.error !== undefined && codes?.includes(body.error)));
          if (!fits) undocumented.push(`${method} ${path}: ${response.status} ${body.error}`);
          if (operation.security?.length === 0 && body.error === 'INVALID_TOKEN') {
            notPublic.push(`${method} ${path}`);
          }
        }
      }
    }
    expect(probes).toBeGreaterThan(35);
    expect(undocumented).toEqual([]);
    expect(notPublic).toEqual([]);
  });

  it('types every parameter, and makes a body optional where the route reads none as empty', () => {
    const untyped = OPERATIONS.flatMap(({ path, method, operation }) =>
      (operation.parameters ?? [])
        .filter((parameter) => typeof parameter.schema?.type !== 'string')
        .map((parameter) => `${method} ${path} ${parameter.in} ${parameter.name}`),
    );
    expect(untyped).toEqual([]);
    const optional = OPERATIONS.filter(
      ({ operation }) => operation.requestBody?.required === false,
    );
    expect(optional.map(({ operation }) => operation.operationId).sort()).toEqual([
      'logout',
      'sendUserPasswordReset',
    ]);
  });

  it('documents the cookies and the tokens each route takes', () => {
    expect(Object.keys(COMMITTED.components.securitySchemes).sort()).toEqual([
      'accessCookie',
      'bearer',
      'metricsToken',
      'refreshCookie',
    ]);
    const security = (path: string, method = 'post') =>
      COMMITTED.paths[path][method].security?.map((entry) => Object.keys(entry)[0]).sort();
    expect(security('/api/v1/auth/verify-token', 'get')).toEqual(['accessCookie', 'bearer']);
    expect(security('/api/v1/users/me', 'get')).toEqual(['accessCookie', 'bearer']);
    expect(security('/api/v1/auth/refresh')).toEqual(['refreshCookie']);
    expect(security('/api/v1/auth/logout')).toEqual(['accessCookie', 'bearer', 'refreshCookie']);
    expect(COMMITTED.paths['/api/v1/auth/login'].post.responses['200'].headers).toHaveProperty(
      'Set-Cookie',
    );
    // Public routes say so; every other one names what it takes.
    expect(security('/api/v1/auth/login')).toEqual([]);
    expect(security('/api/v1/email/verify')).toEqual([]);
    expect(security('/.well-known/jwks.json', 'get')).toEqual([]);
    expect(OPERATIONS.filter(({ operation }) => operation.security === undefined)).toEqual([]);
    // The metrics token is a configured secret, not a JWT.
    expect(COMMITTED.components.securitySchemes.metricsToken).not.toHaveProperty('bearerFormat');
    expect(COMMITTED.components.securitySchemes.bearer).toHaveProperty('bearerFormat', 'JWT');
  });

  it("documents the redirects: where they go, their cookies, no body, and the provider's query", () => {
    const redirects = OPERATIONS.filter(({ operation }) => operation.responses['302']);
    expect(redirects.map(({ operation }) => operation.operationId).sort()).toEqual([
      'finishProviderSignIn',
      'startIdentityLink',
      'startProviderReauthentication',
      'startProviderSignIn',
    ]);
    for (const { operation } of redirects) {
      const found = operation.responses['302'];
      expect(Object.keys(found.headers ?? {})).toEqual(
        expect.arrayContaining(['Location', 'Set-Cookie']),
      );
      expect(found.content).toBeUndefined();
    }
    const callback = COMMITTED.paths['/api/v1/auth/providers/{id}/callback'].get;
    const query = (callback.parameters ?? []).filter((parameter) => parameter.in === 'query');
    expect(query.map((parameter) => [parameter.name, parameter.required])).toEqual([
      ['state', true],
      ['code', false],
      ['iss', false],
      ['error', false],
      ['error_description', false],
    ]);
  });

  it("passes Redocly's recommended lint and Spectral's spectral:oas without an error", async () => {
    const { redocly, spectral } = await lintOpenApi(OPENAPI_FILE);
    expect(redocly.filter((problem) => problem.severity === 'error')).toEqual([]);
    expect(spectral.filter((problem) => problem.severity === 'error')).toEqual([]);
    // Both ran: Redocly always has its warnings about the redirects (no 2xx answer).
    expect(redocly.map((problem) => problem.ruleId)).toContain('operation-2xx-response');
  });

  it('is a real lint: an example its schema refuses is an error to Spectral', async () => {
    const broken = JSON.parse(JSON.stringify(COMMITTED)) as {
      components: { schemas: Record<string, { properties: Record<string, object> }> };
    };
    // The recovery codes' example as it was: 2 codes where the schema says 10.
    const codes = broken.components.schemas.RecoveryCodesModel.properties.recovery_codes;
    broken.components.schemas.RecoveryCodesModel.properties.recovery_codes = {
      ...codes,
      example: ['K7QXM-4PZRT', 'W2HNC-8YDVF'],
    };
    const dir = mkdtempSync(join(tmpdir(), 'openapi-lint-'));
    try {
      const file = join(dir, 'openapi.json');
      writeFileSync(file, JSON.stringify(broken));
      const { spectral } = await lintOpenApi(file);
      expect(spectral).toEqual([
        expect.objectContaining({
          severity: 'error',
          ruleId: 'oas3-valid-schema-example',
          where: '#/components/schemas/RecoveryCodesModel/properties/recovery_codes/example',
        }),
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('names every operation for client generators: one readable id per path, aliases included', () => {
    const ids = OPERATIONS.map(({ operation }) => operation.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^[a-z][A-Za-z]+$/);
    const idOf = (path: string) => COMMITTED.paths[`/api/v1${path}`].post.operationId;
    expect(idOf('/auth/verify-email')).toBe('verifyEmail');
    expect(idOf('/email/verify-email')).toBe('verifyEmailAlias');
    expect(idOf('/email/verify')).toBe('verifyEmailShortAlias');
    expect(idOf('/email/reset')).toBe('resetPasswordShortAlias');
    // Each operation is described, under a tag the document declares and describes.
    const declared = new Map(COMMITTED.tags.map((tag) => [tag.name, tag.description]));
    for (const { operation } of OPERATIONS) {
      expect(operation.description).toEqual(expect.stringMatching(/\w/));
      for (const tag of operation.tags) expect(declared.get(tag)).toEqual(expect.any(String));
    }
    expect(COMMITTED.servers).toEqual([expect.objectContaining({ url: '/' })]);
  });

  it("tells login's answer shapes apart by a property only one of them has", async () => {
    const schemas = COMMITTED.components.schemas;
    for (const path of ['/api/v1/auth/login', '/api/v1/auth/refresh']) {
      const shapes =
        COMMITTED.paths[path].post.responses['200'].content?.['application/json'].schema.oneOf;
      expect(shapes?.map(({ $ref }) => $ref)).toEqual([
        '#/components/schemas/UserEnvelopeModel',
        '#/components/schemas/TokenResponseModel',
        // Login only: the second step pending, for a user with a second factor.
        ...(path.endsWith('login')
          ? ['#/components/schemas/SecondFactorChallengeEnvelopeModel']
          : []),
      ]);
    }
    // Both envelopes have `success`: their data tell them apart.
    expect(schemas.SecondFactorChallengeModel.required).toEqual(
      expect.arrayContaining(['mfa_required', 'challenge', 'methods']),
    );
    expect(schemas.UserDataModel.required).toEqual(['user']);
    const envelope = schemas.UserEnvelopeModel;
    const tokens = schemas.TokenResponseModel;
    expect(envelope.required).toContain('success');
    expect(tokens.properties).not.toHaveProperty('success');
    expect(tokens.required).toContain('access_token');
    expect(envelope.properties).not.toHaveProperty('access_token');

    const { credentials } = await registerUser(t);
    const asked = { email: credentials.email, password: PASSWORD };
    const cookies = await t.http().post('/api/v1/auth/login').send(asked).expect(200);
    expect(Object.keys(cookies.body as object).sort()).toEqual(
      Object.keys(envelope.properties ?? {}).sort(),
    );
    const body = await t
      .http()
      .post('/api/v1/auth/login')
      .set('X-Token-Delivery', 'body')
      .send(asked)
      .expect(200);
    expect(Object.keys(body.body as object).sort()).toEqual(
      Object.keys(tokens.properties ?? {}).sort(),
    );
  });

  it('describes the addresses the service accepts: internationalised ones too', async () => {
    const schemas = COMMITTED.components.schemas;
    for (const model of ['RegisterDto', 'LoginDto', 'PublicUser', 'TokenUser']) {
      expect(schemas[model].properties?.email.format).toBe('idn-email');
    }
    const ascii = uniqueUser('jose');
    const user = { ...ascii, email: ascii.email.replace('jose', 'josé_') };
    const { user: registered } = await registerUser(t, user);
    expect(registered.email).toBe(user.email);
  });

  it('declares the headers every answer carries, with the values the service sends', async () => {
    for (const { operation } of OPERATIONS) {
      for (const response of Object.values(operation.responses)) {
        expect(response.headers?.['X-Request-Id']).toEqual({
          $ref: '#/components/headers/X-Request-Id',
        });
      }
    }
    for (const path of ['/.well-known/jwks.json', '/api/v1/.well-known/jwks.json']) {
      const documented = COMMITTED.paths[path].get.responses['200'].headers?.['Cache-Control'];
      const served = await t.http().get(path).expect(200);
      expect(documented?.schema?.enum).toEqual([served.headers['cache-control']]);
      expect(served.headers['x-request-id']).toEqual(expect.any(String));
    }
  });
});

/** The `error` codes a documented error response lists (ApiErrors' schema). */
function errorCodesOf(response: Operation['responses'][string]): string[] | undefined {
  return response.content?.['application/json']?.schema.allOf?.[1].properties?.error?.enum;
}

/** The API reference and its document (api-docs.e2e-spec.ts), should Nest ever map them. */
function isDocs(url: string): boolean {
  return url.startsWith('/api/v1/docs') || url === '/api/docs-json';
}

/** Nest names each route it maps on the platform ("Mapped {/api/v1/x, POST} route"). */
class RouteRecorder extends ConsoleLogger {
  constructor(private readonly into: Array<{ method: string; url: string }>) {
    super();
  }

  override log(message: unknown): void {
    const mapped = /^Mapped \{(\S+), (\w+)\} route$/.exec(String(message));
    if (mapped) this.into.push({ url: mapped[1], method: mapped[2] });
  }

  override warn(): void {}
}
