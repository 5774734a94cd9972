import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { UserDirectory } from '../src/users/user-directory.service';
import { LoggedIn, registerAndLogin, uniqueUser } from './support/auth-helpers';
import { TestApp, startTestApp } from './support/test-app';

interface Schema {
  $ref?: string;
  type?: string;
  oneOf?: Schema[];
  properties?: Record<string, Schema>;
}
interface Operation {
  requestBody?: { content: { 'application/json': { schema: Schema } } };
  security?: Array<Record<string, unknown>>;
}

const DOCUMENT = JSON.parse(readFileSync(join(__dirname, '..', 'openapi.json'), 'utf8')) as {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
};
const resolve = (schema: Schema): Schema =>
  schema.$ref ? DOCUMENT.components.schemas[schema.$ref.split('/').pop()!] : schema;

/** Every string field of a body schema, nested ones by their dotted path. */
function stringFields(schema: Schema, prefix = ''): string[] {
  return Object.entries(resolve(schema).properties ?? {}).flatMap(([name, property]) => {
    const field = prefix ? `${prefix}.${name}` : name;
    const resolved = resolve(property);
    if (resolved.properties) return stringFields(resolved, field);
    return resolved.type === 'string' ? [field] : [];
  });
}

/** Each documented JSON body (each shape of a `oneOf`) of every route, with its string fields. */
const BODIES = Object.entries(DOCUMENT.paths).flatMap(([path, item]) =>
  Object.entries(item).flatMap(([method, operation]) => {
    const schema = operation.requestBody?.content['application/json'].schema;
    if (!schema) return [];
    const signedIn = (operation.security ?? []).some((entry) => 'bearer' in entry);
    return (schema.oneOf ?? [schema]).map((shape) => ({
      route: `${method.toUpperCase()} ${path}`,
      method,
      path,
      signedIn,
      fields: stringFields(shape),
    }));
  }),
);

function setField(body: Record<string, unknown>, field: string, value: string): void {
  const names = field.split('.');
  let node = body;
  for (const name of names.slice(0, -1)) {
    node = (node[name] ??= {}) as Record<string, unknown>;
  }
  node[names.at(-1)!] = value;
}

const unpaired = fc.integer({ min: 0xd800, max: 0xdfff }).map((unit) => String.fromCharCode(unit));
/** Well-formed text around one unpaired half of a surrogate pair, anywhere in the string. */
const illFormed = fc
  .tuple(fc.string({ unit: 'grapheme', maxLength: 12 }), unpaired, fc.string({ maxLength: 12 }))
  .map(([before, half, after]) => `${before}${half}${after}`)
  .filter((text) => /\p{Cs}/u.test(text));
const RUNS = Number(process.env.FUZZ_RUNS ?? 25);

/**
 * A `\ud83d` escape in JSON gives a string that is not Unicode text. Whatever route and field it
 * reaches, and whatever the other fields hold, the answer is 400 naming that field, never a 500
 * (a validator that encodes the string throws URIError on it), and nothing is written.
 */
describe('invalid Unicode in any string field of any route', () => {
  let t: TestApp;
  let admin: LoggedIn;
  // An organization the admin owns: its routes check the caller's role before the body.
  let orgId: string;

  beforeAll(async () => {
    t = await startTestApp();
    admin = await registerAndLogin(t, uniqueUser('unicode'));
    await t.app.get(UserDirectory).setRole(admin.user.id, 'admin');
    const created = await t
      .http()
      .post('/api/v1/organizations')
      .set('Authorization', `Bearer ${admin.access}`)
      .send({ name: 'Unicode checks' })
      .expect(201);
    orgId = (created.body as { data: { organization: { id: string } } }).data.organization.id;
  });
  afterAll(() => t.close());

  it('knows the routes it covers from the OpenAPI document', () => {
    expect(BODIES.map((body) => body.route)).toEqual(
      expect.arrayContaining([
        'POST /api/v1/auth/register',
        'POST /api/v1/auth/forgot-password',
        'POST /api/v1/auth/reset-password',
        'POST /api/v1/users/me/email',
        'PATCH /api/v1/admin/users/{id}/role',
      ]),
    );
    expect(BODIES.every((body) => body.fields.length > 0 || body.route.includes('logout'))).toBe(
      true,
    );
  });

  it.each(
    BODIES.filter((body) => body.fields.length > 0).map((body) => [
      `${body.route} {${body.fields.join(', ')}}`,
      body,
    ]),
  )('%s: 400 naming the field', async (_route, body) => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...body.fields),
        illFormed,
        fc.array(fc.string({ maxLength: 20 }), {
          minLength: body.fields.length,
          maxLength: body.fields.length,
        }),
        async (target, bad, others) => {
          const sent: Record<string, unknown> = {};
          body.fields.forEach((field, index) => setField(sent, field, others[index]));
          setField(sent, target, bad);
          const path = body.path
            .replace('{id}', admin.user.id)
            .replace('{orgId}', orgId)
            .replace('{userId}', admin.user.id);
          const request = t.http()[body.method as 'post'](path);
          if (body.signedIn) request.set('Authorization', `Bearer ${admin.access}`);
          const response = await request.send(sent);
          expect({ status: response.status, details: response.body.details }).toEqual({
            status: 400,
            details: expect.arrayContaining([
              { field: target, message: expect.stringMatching(/valid Unicode/) },
            ]),
          });
        },
      ),
      { numRuns: RUNS },
    );
  });

  it.each([
    ['post', '/api/v1/auth/register', { password: 'secret-pass', username: 'surrogate' }],
    ['post', '/api/v1/auth/forgot-password', {}],
    ['post', '/api/v1/email/forgot-password', {}],
    ['post', '/api/v1/auth/resend-verification-email', {}],
    ['post', '/api/v1/auth/reset-password', {}],
  ] as const)('%s %s with the reported address: 400, not 500', async (method, path, rest) => {
    const http = t.http();
    const response = await http[method](path).send({ ...rest, email: 'a\ud83d@x.io' });
    expect(response.status).toBe(400);
  });

  it('names a key that is not Unicode text without the bad unit', async () => {
    const response = await t
      .http()
      .post('/api/v1/auth/forgot-password')
      .set('Content-Type', 'application/json')
      .send('{"email":"a@example.com","x\\ud83d":"y"}');
    expect(response.status).toBe(400);
    expect(response.body.details).toEqual([
      { field: 'x\ufffd', message: expect.stringMatching(/valid Unicode/) },
    ]);
  });
});
