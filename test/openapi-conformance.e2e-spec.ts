import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { isEmail } from 'class-validator';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Response } from 'supertest';
import {
  LoggedIn,
  PASSWORD,
  cookiesOf,
  login,
  registerAndLogin,
  registerUser,
  uniqueUser,
} from './support/auth-helpers';
import { LinkedIdentitiesService } from '../src/linked-identities/linked-identities.service';
import { UserDirectory } from '../src/users/user-directory.service';
import { organizationCases } from './support/organization-conformance-cases';
import { APP_ORIGIN, TestApp, startTestApp } from './support/test-app';
import { Authenticator } from './support/authenticator';
import {
  CreationOptions,
  PasskeyAuthenticator,
  RequestOptions,
} from './support/passkey-authenticator';

/**
 * Issue 15: every live answer, success and documented failure, checked against openapi.json by a
 * real JSON Schema validator, so a client generated from the document reads what the service
 * sends. The cases are keyed by the document's own operations: a new operation without a case
 * fails here instead of going unchecked.
 */

interface Operation {
  responses: Record<
    string,
    { content?: Record<string, unknown>; headers?: Record<string, unknown> }
  >;
}
const DOCUMENT = JSON.parse(readFileSync(join(__dirname, '..', 'openapi.json'), 'utf8')) as {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
};
const OPERATIONS = Object.entries(DOCUMENT.paths).flatMap(([path, operations]) =>
  Object.keys(operations).map((method) => `${method.toUpperCase()} ${path}`),
);
/** Statuses a cheap request provokes; 413, 500 and 503 need a 5 MB body or a broken dependency. */
const CHEAP_FAILURES = ['400', '401', '403', '404', '409', '415'];
const METRICS_TOKEN = 'conformance-metrics-token-0123456789abcdef';
const FOREIGN_ORIGIN = 'https://evil.example.net';
/** The session an access token belongs to: its `sid`. */
const sidOf = (access: string) =>
  (JSON.parse(Buffer.from(access.split('.')[1], 'base64url').toString()) as { sid: string }).sid;

/** The validator, built the way a client's would be: the whole document, refs resolved by Ajv. */
function buildValidator(document: { openapi: string }): Ajv {
  // OpenAPI 3.0 schemas are a JSON Schema draft-07 dialect plus `nullable`, which Ajv 8's default
  // (draft-07) build understands; a 3.1 document would need ajv/dist/2020 instead.
  if (!document.openapi.startsWith('3.0.')) {
    throw new Error(`OpenAPI ${document.openapi}: validate with ajv/dist/2020 instead`);
  }
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);
  // Not in ajv-formats. The service accepts what class-validator's isEmail does, internationalised
  // local parts and domains included, so a valid answer is one the service itself would take back.
  ajv.addFormat('idn-email', (value: string) => isEmail(value));
  // OpenAPI's `password` only tells a UI to mask the field; any string fits.
  ajv.addFormat('password', true);
  ajv.addSchema(closed(document), 'openapi.json');
  return ajv;
}

/**
 * A copy of the document in which every object schema that lists its properties allows no other:
 * the document leaves objects open (a client must tolerate new fields), but a field the service
 * sends without documenting it is a gap in the document this suite is here to find. allOf members
 * stay open, since each sees only part of the object (ApiErrors' `{ error: enum }` narrowing).
 */
function closed(document: unknown): object {
  const close = (node: unknown, inAllOf: boolean): unknown => {
    if (Array.isArray(node)) return node.map((item) => close(item, inAllOf));
    if (node === null || typeof node !== 'object') return node;
    const copy: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(node)) {
      copy[key] = key === 'example' ? value : close(value, key === 'allOf');
    }
    if (
      copy.type === 'object' &&
      copy.properties &&
      !inAllOf &&
      !('additionalProperties' in copy)
    ) {
      copy.additionalProperties = false;
    }
    return copy;
  };
  return close(document, false) as object;
}

/** JSON Pointer escaping (RFC 6901) of one path segment. */
const pointer = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');

interface Checked {
  operation: string;
  status: number;
  problems: string[];
}

/**
 * One live answer against the document: its status is one the operation documents, its
 * X-Request-Id is present where declared, its content type is one declared for that status, and a
 * JSON body validates against the declared schema.
 */
function check(ajv: Ajv, operation: string, response: Response, expected: number): Checked {
  const [method, path] = operation.split(' ');
  const status = response.status;
  const problems: string[] = [];
  const where = `${operation} → ${status}`;
  if (status !== expected) problems.push(`${where}: expected ${expected}, body ${response.text}`);
  const documented = DOCUMENT.paths[path]?.[method.toLowerCase()]?.responses[String(status)];
  if (!documented) return { operation, status, problems: [...problems, `${where}: undocumented`] };
  if (documented.headers?.['X-Request-Id'] && !response.headers['x-request-id']) {
    problems.push(`${where}: no X-Request-Id`);
  }
  if ((status === 429 || status === 503) && documented.headers?.['Retry-After']) {
    if (!/^\d+$/.test(response.headers['retry-after'] ?? ''))
      problems.push(`${where}: Retry-After`);
  }
  if (documented.headers?.Location && !response.headers.location) {
    problems.push(`${where}: no Location`);
  }
  const mediaType = String(response.headers['content-type'] ?? '').split(';')[0];
  const declared = Object.keys(documented.content ?? {});
  if (declared.length === 0) {
    // Documented without a body (the redirects): none at all, on either platform.
    if (mediaType !== '' || response.text !== '') {
      problems.push(`${where}: a ${mediaType} body where none is documented: ${response.text}`);
    }
  } else if (!declared.includes(mediaType)) {
    problems.push(`${where}: content type ${mediaType}, documented ${declared.join(', ')}`);
  } else if (mediaType === 'application/json') {
    const ref =
      `openapi.json#/paths/${pointer(path)}/${method.toLowerCase()}/responses/${status}` +
      '/content/application~1json/schema';
    const validate = ajv.getSchema(ref) ?? ajv.compile({ $ref: ref });
    if (!validate(response.body)) {
      problems.push(
        `${where}: ${ajv.errorsText(validate.errors)} in ${JSON.stringify(response.body)}`,
      );
    }
  }
  return { operation, status, problems };
}

const ajv = buildValidator(DOCUMENT);

/**
 * Statuses proven by the rate-limited instance below rather than the main one. It runs after the
 * main instance is closed: two instances alive in one process share passport's registered
 * strategies, so the second one's would reject the first one's tokens.
 */
const PROVEN_ELSEWHERE: Record<string, string[]> = {
  'GET /metrics': ['404'],
  // EMAIL_CODE_LOGIN=false: the instance below that has it off.
  'POST /api/v1/auth/email-code/verify': ['404'],
  'GET /api/v1/auth/email-code/verify': ['404'],
};
/** The routes of sign-in by email, 404 where EMAIL_CODE_LOGIN=false. */
const EMAIL_CODE_ROUTES = [
  'POST /api/v1/auth/email-code',
  'POST /api/v1/auth/email-code/verify',
  'GET /api/v1/auth/email-code/verify',
];
/**
 * Operations whose documented 403 names MFA_ENROLMENT_REQUIRED: proven by the instance below that
 * requires a second factor of every user, as every other 403 of theirs is by the main one.
 */
const ENROLMENT_GUARDED = OPERATIONS.filter((operation) => {
  const [method, path] = operation.split(' ');
  return JSON.stringify(
    DOCUMENT.paths[path][method.toLowerCase()].responses['403']?.content ?? {},
  ).includes('MFA_ENROLMENT_REQUIRED');
});
for (const operation of ENROLMENT_GUARDED) {
  PROVEN_ELSEWHERE[operation] = [...(PROVEN_ELSEWHERE[operation] ?? []), '403'];
}

describe('OpenAPI conformance: live answers validated against openapi.json (Ajv)', () => {
  let t: TestApp;
  let session: LoggedIn;
  /** An administrator, promoted through the directory (the API never makes one). */
  let admin: LoggedIn;
  /** A registered account whose email is not verified yet. */
  let unverified: { email: string; username: string; password: string };

  beforeAll(async () => {
    t = await startTestApp({
      METRICS_TOKEN,
      // GitHub's preset builds its authorization URL without a request: no provider need run.
      AUTH_PROVIDERS: JSON.stringify([
        {
          id: 'gh',
          type: 'github',
          name: 'GitHub',
          client_id: 'conformance',
          client_secret: 'conformance-secret',
          domains: ['sso.example'],
        },
        {
          id: 'ghsso',
          type: 'github',
          name: 'GitHub SSO',
          client_id: 'conformance',
          client_secret: 'conformance-secret',
          domains: ['sso-only.example'],
          sso_required: true,
        },
      ]),
    });
    session = await registerAndLogin(t);
    // Verified, so resending its verification mail is the documented 409.
    const mail = await newest(session.credentials.email);
    await json('/api/v1/auth/verify-email', { token: mail.token }).expect(200);
    unverified = uniqueUser('unverified');
    await t.http().post('/api/v1/auth/register').send(unverified).expect(201);
    admin = await registerAndLogin(t, uniqueUser('admin'));
    await t.app.get(UserDirectory).setRole(admin.user.id, 'admin');
  });
  afterAll(() => t?.close());

  const http = () => t.http();
  const json = (path: string, body: object) => http().post(path).send(body);
  const plainText = (path: string) =>
    http().post(path).set('Content-Type', 'text/plain').send('plain text');
  /** A link the app's page follows: a top-level navigation, from the app's site. */
  const navigate = (path: string) =>
    http()
      .get(path)
      .set('Sec-Fetch-Site', 'same-site')
      .set('Sec-Fetch-Mode', 'navigate')
      .set('Sec-Fetch-Dest', 'document');
  const bearer = (request: ReturnType<ReturnType<typeof http>['get']>) =>
    request.set('Authorization', `Bearer ${session.access}`);
  /** A cookie-authenticated change sent from a foreign page: the CSRF rule's 403. */
  const fromForeignPage = (method: 'post' | 'delete', path: string) => {
    const client = http();
    return client[method](path)
      .set('Origin', FOREIGN_ORIGIN)
      .set('Cookie', `access_token=${session.access}`);
  };
  const newest = async (to: string) => {
    const mail = (await t.outbox()).filter((received) => received.to === to).at(-1);
    if (!mail?.token) throw new Error(`No mail with a token to ${to}`);
    return mail;
  };
  /** A fresh account's verification token, so each verify alias uses one up. */
  const verificationToken = async () => {
    const user = uniqueUser('verify');
    await json('/api/v1/auth/register', user).expect(201);
    return (await newest(user.email)).token;
  };
  /** A fresh account's reset token (variant B of reset-password). */
  const resetToken = async () => {
    const user = uniqueUser('reset');
    await json('/api/v1/auth/register', user).expect(201);
    await json('/api/v1/auth/forgot-password', { email: user.email }).expect(200);
    return (await newest(user.email)).token;
  };
  /** A fresh refresh token, since refreshing rotates (and logging out ends) the one used. */
  const freshRefresh = async () => {
    const response = await json('/api/v1/auth/login', {
      email: session.credentials.email,
      password: PASSWORD,
    }).expect(200);
    return cookiesOf(response).refresh_token.value;
  };

  /** A fresh signed-in account, for cases that change the password or the address. */
  const fresh = () => registerAndLogin(t, uniqueUser('account'));
  const withBearer = (access: string, request: ReturnType<ReturnType<typeof http>['post']>) =>
    request.set('Authorization', `Bearer ${access}`);
  /** A fresh account's change-of-email token, and the address it moves to. */
  const emailChangeToken = async () => {
    const account = await fresh();
    const newEmail = uniqueUser('moved').email;
    await withBearer(account.access, http().post('/api/v1/users/me/email'))
      .send({ password: PASSWORD, newEmail })
      .expect(200);
    return { token: (await newest(newEmail)).token, newEmail, oldEmail: account.credentials.email };
  };
  /** A made change's undo token (in the notice to the old address), and that address. */
  const undoToken = async () => {
    const { token, oldEmail } = await emailChangeToken();
    await json('/api/v1/users/me/email/confirm', { token }).expect(200);
    return { token: (await newest(oldEmail)).token, oldEmail };
  };

  type Method = 'get' | 'post' | 'patch' | 'delete';
  /** A request with a bearer token: the administrator's, the plain user's, or none. */
  const by = (who: LoggedIn | undefined, method: Method, path: string) => {
    const request = http()[method](path);
    return who ? request.set('Authorization', `Bearer ${who.access}`) : request;
  };
  const asAdmin = (method: Method, path: string) => by(admin, method, path);
  const textTo = (method: Method, path: string) =>
    asAdmin(method, path).set('Content-Type', 'text/plain').send('plain text');
  /** A fresh account with two-step sign-in on, and its authenticator app. */
  const enrolled = async () => {
    const account = await fresh();
    const begun = await withBearer(account.access, http().post('/api/v1/users/me/mfa/totp'));
    const app = new Authenticator(begun.body.data.secret as string);
    await withBearer(account.access, http().post('/api/v1/users/me/mfa/totp/confirm'))
      .send({ code: await app.code() })
      .expect(200);
    return { ...account, app };
  };
  /** A login's second step pending for a fresh enrolled account. */
  const pending = async () => {
    const account = await enrolled();
    const step = await json('/api/v1/auth/login', {
      email: account.credentials.email,
      password: PASSWORD,
    }).expect(200);
    return { ...account, challenge: step.body.data.challenge as string };
  };
  /** A fresh account with a passkey, its authenticator and the passkey's id. */
  const withPasskey = async () => {
    const account = await fresh();
    const authenticator = new PasskeyAuthenticator(APP_ORIGIN);
    const begun = await withBearer(
      account.access,
      http().post('/api/v1/users/me/passkeys/options'),
    ).expect(200);
    const registered = await withBearer(account.access, http().post('/api/v1/users/me/passkeys'))
      .send({ response: authenticator.create(begun.body.data.options as CreationOptions) })
      .expect(201);
    return { ...account, authenticator, passkeyId: registered.body.data.passkey.id as string };
  };
  /** A passkey's answer to fresh sign-in options. */
  const passkeyAnswer = async (authenticator: PasskeyAuthenticator) => {
    const begun = await json('/api/v1/auth/passkey/options', {}).expect(200);
    return authenticator.get(begun.body.data.options as RequestOptions);
  };
  /** WebAuthn's shape, answering no challenge the service handed out. */
  const STRAY_REGISTRATION = {
    id: 'AAAA',
    rawId: 'AAAA',
    type: 'public-key',
    clientExtensionResults: {},
    response: { clientDataJSON: 'e30', attestationObject: 'oA' },
  };
  const STRAY_ASSERTION = {
    id: 'AAAA',
    rawId: 'AAAA',
    type: 'public-key',
    clientExtensionResults: {},
    response: { clientDataJSON: 'e30', authenticatorData: 'AA', signature: 'AA' },
  };
  /** A fresh account for a change that uses one up (disable, delete). */
  const freshUserId = async () => (await registerAndLogin(t)).user.id;
  const MISSING = '/api/v1/admin/users/user_000000000000000000';

  type Case = [expected: number, request: () => PromiseLike<Response>];
  const HOOKS = '/api/v1/admin/webhooks';
  /** A receiver that is not there: the attempts fail, which these cases do not wait for. */
  const HOOK_URL = 'http://127.0.0.1:9/hook';
  const MISSING_HOOK = `${HOOKS}/wh_000000000000000000`;
  const freshHook = async () => {
    const created = await asAdmin('post', HOOKS)
      .send({ url: HOOK_URL, events: ['user.created'] })
      .expect(201);
    return `${HOOKS}/${(created.body as { data: { webhook: { id: string } } }).data.webhook.id}`;
  };
  /** 401 to nobody, 403 FORBIDDEN to a plain user, 404 for an unknown endpoint, 415 for text. */
  const hookGuarded = (method: Method, suffix: string, body?: object): Case[] => [
    [401, () => by(undefined, method, `${MISSING_HOOK}${suffix}`)],
    [403, () => by(session, method, `${MISSING_HOOK}${suffix}`)],
    [
      404,
      () =>
        body
          ? asAdmin(method, `${MISSING_HOOK}${suffix}`).send(body)
          : asAdmin(method, `${MISSING_HOOK}${suffix}`),
    ],
    ...(method === 'get' ? [] : [[415, () => textTo(method, `${MISSING_HOOK}${suffix}`)] as Case]),
  ];
  /** 401 to nobody, 403 FORBIDDEN to a plain user, 404 for an unknown id, 415 for a text body. */
  const guarded = (method: Method, suffix: string, body?: object): Case[] => [
    [401, () => by(undefined, method, `/api/v1/admin/users/${session.user.id}${suffix}`)],
    [403, () => by(session, method, `/api/v1/admin/users/${session.user.id}${suffix}`)],
    // A valid body, so the unknown id is what is refused.
    [
      404,
      () =>
        body
          ? asAdmin(method, `${MISSING}${suffix}`).send(body)
          : asAdmin(method, `${MISSING}${suffix}`),
    ],
    ...(method === 'get' ? [] : [[415, () => textTo(method, `${MISSING}${suffix}`)] as Case]),
  ];
  const emailCases = (path: string): Case[] => [
    [400, () => json(path, {})],
    [400, () => json(path, { email: 'not-an-address' })],
    [415, () => plainText(path)],
  ];
  const verifyCases = (path: string): Case[] => [
    [200, async () => json(path, { token: await verificationToken() })],
    [401, () => json(path, { token: 'not-a-token' })],
    // A link the service issued says why it is refused (details[].reason).
    [
      401,
      async () => {
        const token = await verificationToken();
        await json(path, { token }).expect(200);
        return json(path, { token });
      },
    ],
    [400, () => json(path, {})],
    [415, () => plainText(path)],
  ];
  const resendCases = (path: string): Case[] => [
    [200, () => json(path, { email: unverified.email })],
    [409, () => json(path, { email: session.credentials.email })],
    ...emailCases(path),
  ];
  const forgotCases = (path: string): Case[] => [
    [200, () => json(path, { email: session.credentials.email })],
    [404, () => json(path, { email: uniqueUser('nobody').email })],
    [403, () => json(path, { email: 'ann@sso-only.example' })],
    ...emailCases(path),
  ];
  const resetCases = (path: string): Case[] => [
    // Variant A: asks for the mail, as forgot-password does.
    [200, () => json(path, { email: unverified.email })],
    // Variant B: sets the password with the emailed token.
    [200, async () => json(path, { token: await resetToken(), newPassword: 'brand-new-pass' })],
    [401, () => json(path, { token: 'not-a-token', newPassword: 'brand-new-pass' })],
    [404, () => json(path, { email: uniqueUser('nobody').email })],
    [403, () => json(path, { email: 'ann@sso-only.example' })],
    ...emailCases(path),
  ];
  const pageCases = (path: string): Case[] => [[200, () => http().get(`${path}?token=abc`)]];
  /** A fresh account's mailed sign-in code, with its link's token; `disabled` first if asked. */
  const emailCode = async (disabled = false) => {
    const { credentials, user } = await registerUser(t, uniqueUser('code'));
    if (disabled) {
      await t.dataSource.query('UPDATE users SET disabled_at = created_at WHERE id = ?', [user.id]);
    }
    await json('/api/v1/auth/email-code', { email: credentials.email }).expect(200);
    const mail = await newest(credentials.email);
    const code = /\n(\d{6})\n/.exec(mail.text)?.[1] ?? '';
    return { email: credentials.email, code, token: mail.token };
  };
  const documentOnly = (path: string): Case[] => [[200, () => http().get(path)]];

  const CASES: Record<string, () => Case[]> = {
    'POST /api/v1/auth/register': () => [
      [201, () => json('/api/v1/auth/register', uniqueUser())],
      // IDN: the answer echoes the address, and its idn-email format must accept it.
      [
        201,
        () => {
          const ascii = uniqueUser('jose');
          return json('/api/v1/auth/register', {
            ...ascii,
            email: ascii.email.replace('jose', 'josé_'),
          });
        },
      ],
      [409, () => json('/api/v1/auth/register', session.credentials)],
      [
        403,
        () => json('/api/v1/auth/register', { ...uniqueUser(), email: 'ann@sso-only.example' }),
      ],
      [400, () => json('/api/v1/auth/register', {})],
      [415, () => plainText('/api/v1/auth/register')],
    ],
    'POST /api/v1/auth/login': () => {
      const credentials = { email: session.credentials.email, password: PASSWORD };
      return [
        [200, () => json('/api/v1/auth/login', credentials)],
        [200, () => json('/api/v1/auth/login', credentials).set('X-Token-Delivery', 'body')],
        [401, () => json('/api/v1/auth/login', { ...credentials, password: 'wrong-password' })],
        [400, () => json('/api/v1/auth/login', {})],
        [415, () => plainText('/api/v1/auth/login')],
        [
          403,
          async () => {
            const disabled = await registerAndLogin(t);
            await asAdmin('post', `/api/v1/admin/users/${disabled.user.id}/disable`).expect(200);
            const { email, password } = disabled.credentials;
            return json('/api/v1/auth/login', { email, password });
          },
        ],
      ];
    },
    'POST /api/v1/auth/refresh': () => [
      [
        200,
        async () =>
          http()
            .post('/api/v1/auth/refresh')
            .set('Cookie', `refresh_token=${await freshRefresh()}`),
      ],
      [
        200,
        async () =>
          http()
            .post('/api/v1/auth/refresh')
            .set('X-Token-Delivery', 'body')
            .set('Cookie', `refresh_token=${await freshRefresh()}`),
      ],
      [401, () => http().post('/api/v1/auth/refresh')],
      [
        403,
        async () =>
          http()
            .post('/api/v1/auth/refresh')
            .set('Origin', FOREIGN_ORIGIN)
            .set('Cookie', `refresh_token=${await freshRefresh()}`),
      ],
      [415, () => plainText('/api/v1/auth/refresh')],
    ],
    'POST /api/v1/auth/logout': () => [
      [401, () => http().post('/api/v1/auth/logout')],
      [
        403,
        () =>
          http()
            .post('/api/v1/auth/logout')
            .set('Origin', FOREIGN_ORIGIN)
            .set('Cookie', `access_token=${session.access}`),
      ],
      [415, () => plainText('/api/v1/auth/logout')],
      [400, () => bearer(http().post('/api/v1/auth/logout')).send({ scope: 'everywhere' })],
      [
        200,
        async () => {
          const other = await registerAndLogin(t);
          return http()
            .post('/api/v1/auth/logout')
            .set('Authorization', `Bearer ${other.access}`)
            .send({ scope: 'current' });
        },
      ],
      [
        200,
        async () => {
          const other = await registerAndLogin(t);
          return http()
            .post('/api/v1/auth/logout')
            .set('Authorization', `Bearer ${other.access}`)
            .send({ scope: 'others' });
        },
      ],
      // Last: it ends every session of the user, so the cases after it log in again.
      [
        200,
        async () => {
          const other = await registerAndLogin(t);
          return http().post('/api/v1/auth/logout').set('Authorization', `Bearer ${other.access}`);
        },
      ],
    ],
    'GET /api/v1/auth/verify-token': () => [
      [200, () => bearer(http().get('/api/v1/auth/verify-token'))],
      [
        200,
        () =>
          http().get('/api/v1/auth/verify-token').set('Cookie', `access_token=${session.access}`),
      ],
      [401, () => http().get('/api/v1/auth/verify-token')],
      [401, () => http().get('/api/v1/auth/verify-token').set('Authorization', 'Bearer not.a.jwt')],
    ],
    'GET /api/v1/auth/session': () => [
      [200, () => bearer(http().get('/api/v1/auth/session'))],
      [200, () => http().get('/api/v1/auth/session')],
      [
        200,
        () =>
          http()
            .get('/api/v1/auth/session')
            .set('Cookie', 'access_token=not.a.jwt; refresh_token=whatever'),
      ],
    ],
    'POST /api/v1/auth/verify-token': () => [
      [200, () => bearer(http().post('/api/v1/auth/verify-token'))],
      [
        200,
        () =>
          http()
            .post('/api/v1/auth/verify-token')
            .set('Origin', APP_ORIGIN)
            .set('Cookie', `access_token=${session.access}`),
      ],
      [401, () => http().post('/api/v1/auth/verify-token')],
      [
        403,
        () =>
          http()
            .post('/api/v1/auth/verify-token')
            .set('Sec-Fetch-Site', 'cross-site')
            .set('Cookie', `access_token=${session.access}`),
      ],
      [415, () => plainText('/api/v1/auth/verify-token')],
    ],
    'POST /api/v1/auth/verify-email': () => verifyCases('/api/v1/auth/verify-email'),
    'GET /api/v1/auth/verify-email': () => pageCases('/api/v1/auth/verify-email'),
    'POST /api/v1/email/verify-email': () => verifyCases('/api/v1/email/verify-email'),
    'POST /api/v1/email/verify': () => verifyCases('/api/v1/email/verify'),
    'POST /api/v1/auth/resend-verification-email': () =>
      resendCases('/api/v1/auth/resend-verification-email'),
    'POST /api/v1/email/resend-verification-email': () =>
      resendCases('/api/v1/email/resend-verification-email'),
    'POST /api/v1/auth/forgot-password': () => forgotCases('/api/v1/auth/forgot-password'),
    'POST /api/v1/email/forgot-password': () => forgotCases('/api/v1/email/forgot-password'),
    'POST /api/v1/auth/reset-password': () => resetCases('/api/v1/auth/reset-password'),
    'GET /api/v1/auth/reset-password': () => pageCases('/api/v1/auth/reset-password'),
    'POST /api/v1/email/reset-password': () => resetCases('/api/v1/email/reset-password'),
    'POST /api/v1/email/reset': () => resetCases('/api/v1/email/reset'),
    'GET /metrics': () => [
      [200, () => http().get('/metrics').set('Authorization', `Bearer ${METRICS_TOKEN}`)],
      [401, () => http().get('/metrics').set('Authorization', 'Bearer wrong-token')],
      [401, () => http().get('/metrics')],
    ],
    'GET /api/v1/users/me': () => [
      [200, () => bearer(http().get('/api/v1/users/me'))],
      [401, () => http().get('/api/v1/users/me')],
    ],
    'DELETE /api/v1/users/me': () => [
      [
        200,
        async () => {
          const owner = await registerAndLogin(t);
          return by(owner, 'delete', '/api/v1/users/me').send({ password: PASSWORD });
        },
      ],
      [400, () => by(session, 'delete', '/api/v1/users/me').send({})],
      [401, () => by(undefined, 'delete', '/api/v1/users/me').send({ password: PASSWORD })],
      [403, () => by(session, 'delete', '/api/v1/users/me').send({ password: 'wrong-password' })],
      [415, () => textTo('delete', '/api/v1/users/me')],
    ],
    'GET /api/v1/admin/users': () => [
      [200, () => asAdmin('get', '/api/v1/admin/users?search=admin&page=1&pageSize=5')],
      [
        200,
        async () => {
          const first = await asAdmin('get', '/api/v1/admin/users?pageSize=1');
          const cursor = (first.body as { data: { next_cursor: string } }).data.next_cursor;
          return asAdmin('get', `/api/v1/admin/users?pageSize=1&cursor=${cursor}`);
        },
      ],
      [400, () => asAdmin('get', '/api/v1/admin/users?pageSize=0')],
      [400, () => asAdmin('get', '/api/v1/admin/users?cursor=abc')],
      [401, () => http().get('/api/v1/admin/users')],
      [403, () => bearer(http().get('/api/v1/admin/users'))],
    ],
    'GET /api/v1/admin/users/{id}': () => [
      [200, () => asAdmin('get', `/api/v1/admin/users/${session.user.id}`)],
      ...guarded('get', ''),
    ],
    'GET /api/v1/admin/users/{id}/identities': () => [
      [200, () => asAdmin('get', `/api/v1/admin/users/${session.user.id}/identities`)],
      ...guarded('get', '/identities'),
    ],
    'PATCH /api/v1/admin/users/{id}/role': () => [
      [
        200,
        async () =>
          asAdmin('patch', `/api/v1/admin/users/${await freshUserId()}/role`).send({
            role: 'admin',
          }),
      ],
      [400, () => asAdmin('patch', `${MISSING}/role`).send({ role: 'owner' })],
      [
        409,
        () => asAdmin('patch', `/api/v1/admin/users/${admin.user.id}/role`).send({ role: 'user' }),
      ],
      ...guarded('patch', '/role', { role: 'admin' }),
    ],
    'POST /api/v1/admin/users/{id}/disable': () => [
      [200, async () => asAdmin('post', `/api/v1/admin/users/${await freshUserId()}/disable`)],
      [409, () => asAdmin('post', `/api/v1/admin/users/${admin.user.id}/disable`)],
      ...guarded('post', '/disable'),
    ],
    'POST /api/v1/admin/users/{id}/enable': () => [
      [200, async () => asAdmin('post', `/api/v1/admin/users/${await freshUserId()}/enable`)],
      ...guarded('post', '/enable'),
    ],
    'POST /api/v1/admin/users/{id}/sessions/end': () => [
      [200, async () => asAdmin('post', `/api/v1/admin/users/${await freshUserId()}/sessions/end`)],
      ...guarded('post', '/sessions/end'),
    ],
    'POST /api/v1/admin/users/{id}/password-reset': () => [
      [200, () => asAdmin('post', `/api/v1/admin/users/${session.user.id}/password-reset`)],
      [
        400,
        () =>
          asAdmin('post', `/api/v1/admin/users/${session.user.id}/password-reset`).send({
            applicationUrl: 'https://evil.example.net/reset',
          }),
      ],
      ...guarded('post', '/password-reset'),
    ],
    'DELETE /api/v1/admin/users/{id}': () => [
      [200, async () => asAdmin('delete', `/api/v1/admin/users/${await freshUserId()}`)],
      [409, () => asAdmin('delete', `/api/v1/admin/users/${admin.user.id}`)],
      ...guarded('delete', ''),
    ],
    'POST /api/v1/admin/webhooks': () => [
      [201, () => asAdmin('post', HOOKS).send({ url: HOOK_URL, events: ['*'] })],
      [400, () => asAdmin('post', HOOKS).send({ url: HOOK_URL, events: ['user.exploded'] })],
      [401, () => by(undefined, 'post', HOOKS).send({ url: HOOK_URL, events: ['*'] })],
      [403, () => by(session, 'post', HOOKS).send({ url: HOOK_URL, events: ['*'] })],
      [415, () => textTo('post', HOOKS)],
    ],
    'GET /api/v1/admin/webhooks': () => [
      [200, () => asAdmin('get', HOOKS)],
      [401, () => http().get(HOOKS)],
      [403, () => bearer(http().get(HOOKS))],
    ],
    'PATCH /api/v1/admin/webhooks/{id}': () => [
      [200, async () => asAdmin('patch', await freshHook()).send({ enabled: false })],
      [400, async () => asAdmin('patch', await freshHook()).send({ events: [] })],
      ...hookGuarded('patch', '', { enabled: true }),
    ],
    'DELETE /api/v1/admin/webhooks/{id}': () => [
      [200, async () => asAdmin('delete', await freshHook())],
      ...hookGuarded('delete', ''),
    ],
    'POST /api/v1/admin/webhooks/{id}/rotate-secret': () => [
      [200, async () => asAdmin('post', `${await freshHook()}/rotate-secret`)],
      ...hookGuarded('post', '/rotate-secret'),
    ],
    'POST /api/v1/admin/webhooks/{id}/test': () => [
      [202, async () => asAdmin('post', `${await freshHook()}/test`)],
      ...hookGuarded('post', '/test'),
    ],
    'GET /api/v1/admin/webhooks/{id}/deliveries': () => [
      [200, async () => asAdmin('get', `${await freshHook()}/deliveries?status=pending`)],
      [400, async () => asAdmin('get', `${await freshHook()}/deliveries?status=lost`)],
      ...hookGuarded('get', '/deliveries'),
    ],
    'POST /api/v1/admin/webhooks/{id}/deliveries/{delivery_id}/retry': () => [
      [
        200,
        async () => {
          const hook = await freshHook();
          await asAdmin('post', `${hook}/test`).expect(202);
          const log = await asAdmin('get', `${hook}/deliveries`).expect(200);
          const [delivery] = (log.body as { data: { deliveries: Array<{ id: string }> } }).data
            .deliveries;
          return asAdmin('post', `${hook}/deliveries/${delivery.id}/retry`);
        },
      ],
      ...hookGuarded('post', '/deliveries/msg_000000000000000000/retry'),
    ],
    'GET /api/v1/users/me/sessions': () => [
      [200, () => bearer(http().get('/api/v1/users/me/sessions'))],
      [401, () => http().get('/api/v1/users/me/sessions')],
    ],
    'DELETE /api/v1/users/me/sessions/{id}': () => {
      const path = (id: string) => `/api/v1/users/me/sessions/${id}`;
      return [
        // Another session of a fresh account, then an account's own current one (cookies cleared).
        [
          200,
          async () => {
            const { access, credentials } = await registerAndLogin(t);
            const second = await login(t, credentials);
            return http()
              .delete(path(sidOf(second.access)))
              .set('Authorization', `Bearer ${access}`);
          },
        ],
        [
          200,
          async () => {
            const { access } = await registerAndLogin(t);
            return http()
              .delete(path(sidOf(access)))
              .set('Authorization', `Bearer ${access}`);
          },
        ],
        [404, () => bearer(http().delete(path('00000000-0000-4000-8000-000000000000')))],
        [401, () => http().delete(path(sidOf(session.access)))],
        [
          403,
          () =>
            http()
              .delete(path(sidOf(session.access)))
              .set('Origin', FOREIGN_ORIGIN)
              .set('Cookie', `access_token=${session.access}`),
        ],
        [
          415,
          () =>
            http()
              .delete(path(sidOf(session.access)))
              .set('Content-Type', 'text/plain')
              .send('plain text'),
        ],
      ];
    },
    'POST /api/v1/users/me/sessions/end-others': () => [
      [
        200,
        async () => {
          const { access, credentials } = await registerAndLogin(t);
          await login(t, credentials);
          return http()
            .post('/api/v1/users/me/sessions/end-others')
            .set('Authorization', `Bearer ${access}`);
        },
      ],
      [401, () => http().post('/api/v1/users/me/sessions/end-others')],
      [
        403,
        () =>
          http()
            .post('/api/v1/users/me/sessions/end-others')
            .set('Origin', FOREIGN_ORIGIN)
            .set('Cookie', `access_token=${session.access}`),
      ],
      [415, () => plainText('/api/v1/users/me/sessions/end-others')],
    ],
    'PATCH /api/v1/users/me': () => [
      [200, () => bearer(http().patch('/api/v1/users/me')).send({ name: 'Ann', picture: null })],
      [
        200,
        () =>
          bearer(http().patch('/api/v1/users/me')).send({
            picture: 'https://cdn.example.com/ann.png',
          }),
      ],
      [400, () => bearer(http().patch('/api/v1/users/me')).send({})],
      [400, () => bearer(http().patch('/api/v1/users/me')).send({ picture: 'http://x.example' })],
      [401, () => http().patch('/api/v1/users/me').send({ name: 'Ann' })],
      [
        403,
        () =>
          http()
            .patch('/api/v1/users/me')
            .set('Origin', FOREIGN_ORIGIN)
            .set('Cookie', `access_token=${session.access}`)
            .send({ name: 'Ann' }),
      ],
      [409, () => bearer(http().patch('/api/v1/users/me')).send({ username: unverified.username })],
      [
        415,
        () =>
          bearer(http().patch('/api/v1/users/me'))
            .set('Content-Type', 'text/plain')
            .send('plain text'),
      ],
    ],
    'POST /api/v1/users/me/password': () => {
      const path = '/api/v1/users/me/password';
      const change = { currentPassword: PASSWORD, newPassword: 'a brand new secret' };
      return [
        [200, async () => withBearer((await fresh()).access, http().post(path)).send(change)],
        [
          200,
          async () =>
            withBearer((await fresh()).access, http().post(path))
              .set('X-Token-Delivery', 'body')
              .send(change),
        ],
        [400, () => bearer(http().post(path)).send({ currentPassword: PASSWORD })],
        [401, () => http().post(path).send(change)],
        [403, () => bearer(http().post(path)).send({ ...change, currentPassword: 'wrong one' })],
        [
          403,
          () =>
            http()
              .post(path)
              .set('Origin', FOREIGN_ORIGIN)
              .set('Cookie', `access_token=${session.access}`)
              .send(change),
        ],
        [415, () => bearer(http().post(path)).set('Content-Type', 'text/plain').send('text')],
      ];
    },
    'POST /api/v1/users/me/email': () => {
      const path = '/api/v1/users/me/email';
      const change = () => ({ password: PASSWORD, newEmail: uniqueUser('new').email });
      return [
        [200, () => bearer(http().post(path)).send(change())],
        [400, () => bearer(http().post(path)).send({ password: PASSWORD })],
        [401, () => http().post(path).send(change())],
        [403, () => bearer(http().post(path)).send({ ...change(), password: 'wrong one' })],
        [
          403,
          () =>
            http()
              .post(path)
              .set('Origin', FOREIGN_ORIGIN)
              .set('Cookie', `access_token=${session.access}`)
              .send(change()),
        ],
        [409, () => bearer(http().post(path)).send({ ...change(), newEmail: unverified.email })],
        [415, () => bearer(http().post(path)).set('Content-Type', 'text/plain').send('text')],
      ];
    },
    'POST /api/v1/users/me/email/confirm': () => {
      const path = '/api/v1/users/me/email/confirm';
      return [
        [200, async () => json(path, { token: (await emailChangeToken()).token })],
        [400, () => json(path, {})],
        [401, () => json(path, { token: 'not-a-token' })],
        [
          409,
          async () => {
            const { token, newEmail } = await emailChangeToken();
            await json('/api/v1/auth/register', { ...uniqueUser('taker'), email: newEmail }).expect(
              201,
            );
            return json(path, { token });
          },
        ],
        [415, () => plainText(path)],
      ];
    },
    'GET /api/v1/users/me/email/confirm': () => pageCases('/api/v1/users/me/email/confirm'),
    'POST /api/v1/users/me/email/undo': () => {
      const path = '/api/v1/users/me/email/undo';
      return [
        [200, async () => json(path, { token: (await undoToken()).token })],
        [400, () => json(path, {})],
        [401, () => json(path, { token: 'not-a-token' })],
        [
          409,
          async () => {
            const { token, oldEmail } = await undoToken();
            await json('/api/v1/auth/register', { ...uniqueUser('squat'), email: oldEmail }).expect(
              201,
            );
            return json(path, { token });
          },
        ],
        [415, () => plainText(path)],
      ];
    },
    'GET /api/v1/users/me/email/undo': () => pageCases('/api/v1/users/me/email/undo'),
    'GET /api/v1/users/me/mfa': () => [
      [200, () => bearer(http().get('/api/v1/users/me/mfa'))],
      [401, () => http().get('/api/v1/users/me/mfa')],
    ],
    'POST /api/v1/users/me/mfa/totp': () => {
      const path = '/api/v1/users/me/mfa/totp';
      return [
        [200, async () => withBearer((await fresh()).access, http().post(path))],
        [400, async () => withBearer((await enrolled()).access, http().post(path))],
        [401, () => http().post(path)],
        [403, () => fromForeignPage('post', path)],
        [415, () => bearer(http().post(path)).set('Content-Type', 'text/plain').send('text')],
      ];
    },
    'POST /api/v1/users/me/mfa/totp/confirm': () => {
      const path = '/api/v1/users/me/mfa/totp/confirm';
      return [
        [
          200,
          async () => {
            const account = await fresh();
            const begun = await withBearer(
              account.access,
              http().post('/api/v1/users/me/mfa/totp'),
            );
            const app = new Authenticator(begun.body.data.secret as string);
            return withBearer(account.access, http().post(path)).send({ code: await app.code() });
          },
        ],
        [400, () => bearer(http().post(path)).send({})],
        [401, () => http().post(path).send({ code: '123456' })],
        [
          401,
          async () => {
            const account = await fresh();
            await withBearer(account.access, http().post('/api/v1/users/me/mfa/totp')).expect(200);
            return withBearer(account.access, http().post(path)).send({ code: '000000' });
          },
        ],
        [403, () => fromForeignPage('post', path).send({ code: '123456' })],
        [415, () => bearer(http().post(path)).set('Content-Type', 'text/plain').send('text')],
      ];
    },
    'POST /api/v1/users/me/mfa/recovery-codes': () => {
      const path = '/api/v1/users/me/mfa/recovery-codes';
      return [
        [200, async () => withBearer((await enrolled()).access, http().post(path))],
        [400, () => bearer(http().post(path))],
        [401, () => http().post(path)],
        [403, () => fromForeignPage('post', path)],
        [415, () => bearer(http().post(path)).set('Content-Type', 'text/plain').send('text')],
      ];
    },
    'DELETE /api/v1/users/me/mfa/totp': () => {
      const path = '/api/v1/users/me/mfa/totp';
      const off = (access: string) => http().delete(path).set('Authorization', `Bearer ${access}`);
      return [
        [200, async () => off((await enrolled()).access).send({ password: PASSWORD })],
        [400, () => off(session.access).send({})],
        [401, () => http().delete(path).send({ password: PASSWORD })],
        [401, async () => off((await enrolled()).access).send({ code: '000000' })],
        [403, async () => off((await enrolled()).access).send({ password: 'wrong one' })],
        [415, () => off(session.access).set('Content-Type', 'text/plain').send('text')],
      ];
    },
    'DELETE /api/v1/admin/users/{id}/mfa': () => [
      [200, async () => asAdmin('delete', `/api/v1/admin/users/${(await enrolled()).user.id}/mfa`)],
      [400, async () => asAdmin('delete', `/api/v1/admin/users/${await freshUserId()}/mfa`)],
      ...guarded('delete', '/mfa'),
    ],
    'POST /api/v1/auth/mfa/verify': () => {
      const path = '/api/v1/auth/mfa/verify';
      return [
        [
          200,
          async () => {
            const step = await pending();
            return json(path, { challenge: step.challenge, code: await step.app.code() });
          },
        ],
        [
          200,
          async () => {
            const step = await pending();
            return json(path, { challenge: step.challenge, code: await step.app.code() }).set(
              'X-Token-Delivery',
              'body',
            );
          },
        ],
        [400, () => json(path, {})],
        [401, () => json(path, { challenge: 'not-a-challenge', code: '123456' })],
        [401, async () => json(path, { challenge: (await pending()).challenge, code: '000000' })],
        [415, () => plainText(path)],
      ];
    },
    'POST /api/v1/auth/reauthenticate': () => {
      const path = '/api/v1/auth/reauthenticate';
      return [
        [
          200,
          async () =>
            withBearer((await fresh()).access, http().post(path)).send({ password: PASSWORD }),
        ],
        [
          200,
          async () =>
            withBearer((await fresh()).access, http().post(path))
              .set('X-Token-Delivery', 'body')
              .send({ password: PASSWORD }),
        ],
        [
          200,
          async () => {
            const owner = await withPasskey();
            const begun = await withBearer(
              owner.access,
              http().post('/api/v1/auth/reauthenticate/passkey/options'),
            ).expect(200);
            const passkey = owner.authenticator.get(begun.body.data.options as RequestOptions);
            return withBearer(owner.access, http().post(path)).send({ passkey });
          },
        ],
        [
          200,
          async () => {
            const owner = await fresh();
            await withBearer(
              owner.access,
              http().post('/api/v1/auth/reauthenticate/email-code'),
            ).expect(200);
            const mail = (await t.outbox()).filter((m) => m.to === owner.credentials.email).at(-1)!;
            const code = /\n(\d{6})\n/.exec(mail.text)![1];
            return withBearer(owner.access, http().post(path)).send({ email_code: code });
          },
        ],
        [400, () => bearer(http().post(path)).send({})],
        [401, () => http().post(path).send({ password: PASSWORD })],
        [
          401,
          async () =>
            withBearer((await enrolled()).access, http().post(path)).send({ code: '000000' }),
        ],
        [401, () => bearer(http().post(path)).send({ passkey: STRAY_ASSERTION })],
        [
          403,
          async () =>
            withBearer((await fresh()).access, http().post(path)).send({ password: 'wrong one' }),
        ],
        [403, () => fromForeignPage('post', path).send({ password: PASSWORD })],
        [415, () => bearer(http().post(path)).set('Content-Type', 'text/plain').send('text')],
      ];
    },
    'POST /api/v1/auth/reauthenticate/passkey/options': () => {
      const path = '/api/v1/auth/reauthenticate/passkey/options';
      return [
        [200, async () => withBearer((await withPasskey()).access, http().post(path))],
        [401, () => http().post(path)],
        [403, () => fromForeignPage('post', path)],
        [415, () => bearer(http().post(path)).set('Content-Type', 'text/plain').send('text')],
      ];
    },
    'POST /api/v1/auth/reauthenticate/email-code': () => {
      const path = '/api/v1/auth/reauthenticate/email-code';
      return [
        [200, async () => withBearer((await fresh()).access, http().post(path))],
        [401, () => http().post(path)],
        [403, () => fromForeignPage('post', path)],
        [415, () => bearer(http().post(path)).set('Content-Type', 'text/plain').send('text')],
      ];
    },
    'POST /api/v1/users/me/passkeys/options': () => {
      const path = '/api/v1/users/me/passkeys/options';
      return [
        [200, () => bearer(http().post(path))],
        [401, () => http().post(path)],
        [403, () => fromForeignPage('post', path)],
        [415, () => bearer(http().post(path)).set('Content-Type', 'text/plain').send('text')],
      ];
    },
    'POST /api/v1/users/me/passkeys': () => {
      const path = '/api/v1/users/me/passkeys';
      return [
        [
          201,
          async () => {
            const account = await fresh();
            const begun = await withBearer(account.access, http().post(`${path}/options`));
            const response = new PasskeyAuthenticator(APP_ORIGIN).create(
              begun.body.data.options as CreationOptions,
            );
            return withBearer(account.access, http().post(path)).send({ response, name: 'Key' });
          },
        ],
        [400, () => bearer(http().post(path)).send({})],
        [401, () => http().post(path).send({ response: STRAY_REGISTRATION })],
        [401, () => bearer(http().post(path)).send({ response: STRAY_REGISTRATION })],
        [403, () => fromForeignPage('post', path).send({ response: STRAY_REGISTRATION })],
        [415, () => bearer(http().post(path)).set('Content-Type', 'text/plain').send('text')],
      ];
    },
    'GET /api/v1/users/me/passkeys': () => [
      [
        200,
        async () =>
          http()
            .get('/api/v1/users/me/passkeys')
            .set('Authorization', `Bearer ${(await withPasskey()).access}`),
      ],
      [401, () => http().get('/api/v1/users/me/passkeys')],
    ],
    'PATCH /api/v1/users/me/passkeys/{id}': () => {
      const path = (id: string) => `/api/v1/users/me/passkeys/${id}`;
      const patch = (access: string, id: string) =>
        http().patch(path(id)).set('Authorization', `Bearer ${access}`);
      return [
        [
          200,
          async () => {
            const owner = await withPasskey();
            return patch(owner.access, owner.passkeyId).send({ name: 'Renamed' });
          },
        ],
        [400, () => patch(session.access, 'pk_unknown').send({ name: '' })],
        [401, () => http().patch(path('pk_unknown')).send({ name: 'x' })],
        [
          403,
          () =>
            http()
              .patch(path('pk_unknown'))
              .set('Origin', FOREIGN_ORIGIN)
              .set('Cookie', `access_token=${session.access}`)
              .send({ name: 'x' }),
        ],
        [404, () => patch(session.access, 'pk_unknown').send({ name: 'x' })],
        [
          415,
          () => patch(session.access, 'pk_unknown').set('Content-Type', 'text/plain').send('x'),
        ],
      ];
    },
    'DELETE /api/v1/users/me/passkeys/{id}': () => {
      const path = (id: string) => `/api/v1/users/me/passkeys/${id}`;
      const remove = (access: string, id: string) =>
        http().delete(path(id)).set('Authorization', `Bearer ${access}`);
      return [
        [
          200,
          async () => {
            const owner = await withPasskey();
            return remove(owner.access, owner.passkeyId);
          },
        ],
        [401, () => http().delete(path('pk_unknown'))],
        [403, () => fromForeignPage('delete', path('pk_unknown'))],
        [404, () => remove(session.access, 'pk_unknown')],
        [
          409,
          async () => {
            // An account without a password (as an identity provider's would be).
            const owner = await withPasskey();
            await t.dataSource.query("UPDATE users SET password_hash = '' WHERE id = ?", [
              owner.user.id,
            ]);
            return remove(owner.access, owner.passkeyId);
          },
        ],
        [
          415,
          () => remove(session.access, 'pk_unknown').set('Content-Type', 'text/plain').send('x'),
        ],
      ];
    },
    'POST /api/v1/auth/email-code': () => {
      const path = '/api/v1/auth/email-code';
      return [
        [200, () => json(path, { email: session.credentials.email })],
        [200, () => json(path, { email: session.credentials.email, applicationUrl: APP_ORIGIN })],
        [404, () => json(path, { email: uniqueUser('nobody').email })],
        [403, () => json(path, { email: 'ann@sso-only.example' })],
        [
          400,
          () => json(path, { email: session.credentials.email, applicationUrl: FOREIGN_ORIGIN }),
        ],
        ...emailCases(path),
      ];
    },
    'POST /api/v1/auth/email-code/verify': () => {
      const path = '/api/v1/auth/email-code/verify';
      return [
        [
          200,
          async () => {
            const { email, code } = await emailCode();
            return json(path, { email, code });
          },
        ],
        [
          200,
          async () =>
            json(path, { token: (await emailCode()).token }).set('X-Token-Delivery', 'body'),
        ],
        [400, () => json(path, {})],
        [400, () => json(path, { email: 'ann@example.com', code: '12' })],
        [401, () => json(path, { token: 'not-a-token' })],
        [
          403,
          async () => {
            const { email, code } = await emailCode(true);
            return json(path, { email, code });
          },
        ],
        [415, () => plainText(path)],
      ];
    },
    'GET /api/v1/auth/email-code/verify': () => pageCases('/api/v1/auth/email-code/verify'),
    'GET /api/v1/auth/providers': () => [[200, () => http().get('/api/v1/auth/providers')]],
    'GET /api/v1/auth/sign-in-methods': () => [
      [200, () => http().get('/api/v1/auth/sign-in-methods')],
    ],
    'GET /api/v1/auth/providers/{id}/start': () => [
      [302, () => navigate(`/api/v1/auth/providers/gh/start?redirect_to=${APP_ORIGIN}/`)],
      [400, () => http().get('/api/v1/auth/providers/gh/start')],
      [404, () => http().get(`/api/v1/auth/providers/nope/start?redirect_to=${APP_ORIGIN}/`)],
    ],
    'GET /api/v1/auth/providers/{id}/callback': () => [
      [
        302,
        async () => {
          // The person said no at the provider, which sends them back with its error.
          const started = await navigate(
            `/api/v1/auth/providers/gh/start?redirect_to=${APP_ORIGIN}/`,
          );
          const state = new URL(started.headers.location).searchParams.get('state')!;
          const back = new URLSearchParams({
            error: 'access_denied',
            error_description: 'The user has denied your application access.',
            state,
          });
          return navigate(`/api/v1/auth/providers/gh/callback?${back.toString()}`).set(
            'Cookie',
            cookiesOf(started).auth_flow.raw.split(';')[0],
          );
        },
      ],
      [400, () => http().get('/api/v1/auth/providers/gh/callback?state=unknown&code=x')],
    ],
    'POST /api/v1/auth/sso/start': () => {
      const path = '/api/v1/auth/sso/start';
      const back = `${APP_ORIGIN}/`;
      return [
        [200, () => json(path, { email: 'ann@sso.example', redirect_to: back })],
        [400, () => json(path, { email: 'ann@sso.example' })],
        [404, () => json(path, { email: 'ann@elsewhere.example', redirect_to: back })],
        [415, () => plainText(path)],
      ];
    },
    'GET /api/v1/users/me/identities': () => [
      [200, () => bearer(http().get('/api/v1/users/me/identities'))],
      [401, () => http().get('/api/v1/users/me/identities')],
    ],
    'GET /api/v1/users/me/identities/{id}/start': () => [
      [
        302,
        async () =>
          navigate(`/api/v1/users/me/identities/gh/start?redirect_to=${APP_ORIGIN}/`).set(
            'Cookie',
            `access_token=${(await fresh()).access}`,
          ),
      ],
      [400, () => bearer(http().get('/api/v1/users/me/identities/gh/start'))],
      [401, () => http().get(`/api/v1/users/me/identities/gh/start?redirect_to=${APP_ORIGIN}/`)],
      [
        404,
        () =>
          bearer(http().get(`/api/v1/users/me/identities/nope/start?redirect_to=${APP_ORIGIN}/`)),
      ],
    ],
    'GET /api/v1/auth/reauthenticate/providers/{id}/start': () => {
      const start = (query = `?redirect_to=${APP_ORIGIN}/`) =>
        `/api/v1/auth/reauthenticate/providers/gh/start${query}`;
      const linked = async () => {
        const owner = await fresh();
        await t.app.get(LinkedIdentitiesService).link(t.dataSource.manager, {
          userId: owner.user.id,
          provider: 'gh',
          subject: `step-up-${owner.user.id}`,
          email: null,
        });
        return owner;
      };
      return [
        [400, async () => by(await linked(), 'get', start(''))],
        [401, () => http().get(start())],
        // A navigation another site made, signed in by the cookie it carries.
        [
          403,
          () =>
            http()
              .get(start())
              .set('Sec-Fetch-Site', 'cross-site')
              .set('Cookie', `access_token=${session.access}`),
        ],
        [404, () => bearer(http().get(start()))],
      ];
    },
    'DELETE /api/v1/users/me/identities/{provider}': () => {
      const path = '/api/v1/users/me/identities/gh';
      const linked = async (passwordless: boolean) => {
        const owner = await fresh();
        await t.app.get(LinkedIdentitiesService).link(t.dataSource.manager, {
          userId: owner.user.id,
          provider: 'gh',
          subject: owner.user.id,
          email: null,
        });
        if (passwordless) {
          await t.dataSource.query('UPDATE users SET password_hash = NULL WHERE id = ?', [
            owner.user.id,
          ]);
        }
        return http().delete(path).set('Authorization', `Bearer ${owner.access}`);
      };
      return [
        [200, () => linked(false)],
        [401, () => http().delete(path)],
        [403, () => fromForeignPage('delete', path)],
        [404, () => bearer(http().delete(path))],
        [409, () => linked(true)],
        [415, () => bearer(http().delete(path)).set('Content-Type', 'text/plain').send('x')],
      ];
    },
    'POST /api/v1/auth/passkey/options': () => [
      [200, () => http().post('/api/v1/auth/passkey/options')],
      [415, () => plainText('/api/v1/auth/passkey/options')],
    ],
    'POST /api/v1/auth/passkey/verify': () => {
      const path = '/api/v1/auth/passkey/verify';
      return [
        [
          200,
          async () => {
            const owner = await withPasskey();
            return json(path, { response: await passkeyAnswer(owner.authenticator) });
          },
        ],
        [
          200,
          async () => {
            const owner = await withPasskey();
            return json(path, { response: await passkeyAnswer(owner.authenticator) }).set(
              'X-Token-Delivery',
              'body',
            );
          },
        ],
        [400, () => json(path, {})],
        [401, () => json(path, { response: STRAY_ASSERTION })],
        [
          403,
          async () => {
            // An account whose domain came to sign in through its provider only.
            const owner = await withPasskey();
            const email = `${owner.user.username}@sso-only.example`;
            await t.dataSource.query(
              'UPDATE users SET email = ?, email_normalized = ? WHERE id = ?',
              [email, email.toLowerCase(), owner.user.id],
            );
            return json(path, { response: await passkeyAnswer(owner.authenticator) });
          },
        ],
        [415, () => plainText(path)],
      ];
    },
    'POST /api/v1/auth/mfa/passkey/options': () => {
      const path = '/api/v1/auth/mfa/passkey/options';
      return [
        [
          200,
          async () => {
            const owner = await withPasskey();
            const step = await json('/api/v1/auth/login', {
              email: owner.credentials.email,
              password: PASSWORD,
            });
            return json(path, { challenge: step.body.data.challenge as string });
          },
        ],
        [400, () => json(path, {})],
        [401, () => json(path, { challenge: 'not-a-challenge' })],
        [415, () => plainText(path)],
      ];
    },
    'GET /api/v1/health': () => documentOnly('/api/v1/health'),
    'GET /api/v1/health/ready': () => documentOnly('/api/v1/health/ready'),
    'GET /.well-known/jwks.json': () => documentOnly('/.well-known/jwks.json'),
    'GET /api/v1/.well-known/jwks.json': () => documentOnly('/api/v1/.well-known/jwks.json'),
    'GET /.well-known/oauth-authorization-server': () =>
      documentOnly('/.well-known/oauth-authorization-server'),
    ...organizationCases(
      () => t,
      () => admin,
    ),
  };

  it('has a case for every operation the document lists, and none for an undocumented one', () => {
    expect(Object.keys(CASES).sort()).toEqual([...OPERATIONS].sort());
  });

  it.each(OPERATIONS)(
    '%s: a success and each cheap documented failure validate against the document',
    async (operation) => {
      const cases = CASES[operation]?.();
      if (!cases) throw new Error(`No conformance case for ${operation}: add one to CASES`);
      const results: Checked[] = [];
      // One at a time: some cases depend on the account state earlier ones leave.
      for (const [expected, send] of cases) {
        results.push(check(ajv, operation, await send(), expected));
      }
      expect(results.flatMap((result) => result.problems)).toEqual([]);
      const covered = new Set([
        ...results.map((result) => String(result.status)),
        ...(PROVEN_ELSEWHERE[operation] ?? []),
      ]);
      const [method, path] = operation.split(' ');
      const documented = Object.keys(DOCUMENT.paths[path][method.toLowerCase()].responses);
      // Coverage is measured against the document, so a newly documented failure needs a case.
      expect(documented.filter((status) => /^2/.test(status) && !covered.has(status))).toEqual([]);
      expect(
        documented.filter((status) => CHEAP_FAILURES.includes(status) && !covered.has(status)),
      ).toEqual([]);
    },
  );

  it('answers an unknown route 404 NOT_FOUND in the documented error envelope', async () => {
    const response = await http().get('/api/v1/no-such-route').expect(404);
    const validate = ajv.compile({ $ref: 'openapi.json#/components/schemas/ErrorEnvelopeModel' });
    expect(validate(response.body) ? [] : validate.errors).toEqual([]);
    expect(response.body.error).toBe('NOT_FOUND');
    expect(response.headers['x-request-id']).toEqual(expect.any(String));
  });

  it('is a real check: a schema broken on purpose rejects the live answer', async () => {
    const broken = JSON.parse(JSON.stringify(DOCUMENT)) as {
      openapi: string;
      components: { schemas: Record<string, { required: string[] }> };
    };
    // A field the service never sends, required of every user in a registration answer.
    broken.components.schemas.PublicUser.required.push('not_sent_by_the_service');
    const brokenAjv = buildValidator(broken);
    const response = await json('/api/v1/auth/register', uniqueUser());
    const result = check(brokenAjv, 'POST /api/v1/auth/register', response, 201);
    expect(result.problems).toEqual([expect.stringContaining('not_sent_by_the_service')]);
    // And the idn-email format is no rubber stamp: the same user with a broken address fails.
    const validate = ajv.compile({ $ref: 'openapi.json#/components/schemas/PublicUser' });
    const user = response.body.data.user as object;
    expect(validate(user)).toBe(true);
    expect(validate({ ...user, email: 'no at sign' })).toBe(false);
    // Nor are the objects open: a field the document does not list is refused.
    expect(validate({ ...user, undocumented: true })).toBe(false);
  });
});

describe('OpenAPI conformance under limits of one, without METRICS_TOKEN', () => {
  let limited: TestApp;
  beforeAll(async () => {
    // Rate limits of one, so each operation's 429 costs a request or two.
    limited = await startTestApp({ THROTTLE_LIMIT: '1', THROTTLE_AUTH_LIMIT: '1' });
  });
  afterAll(() => limited?.close());

  it('answers /metrics 404 as documented where METRICS_TOKEN is unset', async () => {
    expect(check(ajv, 'GET /metrics', await limited.http().get('/metrics'), 404).problems).toEqual(
      [],
    );
  });

  it('answers 429 as documented on every rate-limited operation (limits of one)', async () => {
    const problems: string[] = [];
    let checked = 0;
    for (const operation of OPERATIONS) {
      const [method, path] = operation.split(' ');
      if (!DOCUMENT.paths[path][method.toLowerCase()].responses['429']) continue;
      // The second request within the window is over a limit of one, whatever the route's budget.
      let response: Response | undefined;
      for (let attempt = 0; attempt < 3 && response?.status !== 429; attempt += 1) {
        const verb = method.toLowerCase() as 'get' | 'post' | 'patch' | 'put' | 'delete';
        response =
          verb === 'get'
            ? await limited.http().get(path)
            : await limited.http()[verb](path).send({});
      }
      problems.push(...check(ajv, operation, response!, 429).problems);
      checked += 1;
    }
    expect(problems).toEqual([]);
    expect(checked).toBeGreaterThan(15);
  });
});

describe('OpenAPI conformance with EMAIL_CODE_LOGIN=false', () => {
  let off: TestApp;
  beforeAll(async () => {
    off = await startTestApp({ EMAIL_CODE_LOGIN: 'false' });
  });
  afterAll(() => off?.close());

  it('answers the routes of sign-in by email 404 as documented', async () => {
    const problems: string[] = [];
    for (const operation of EMAIL_CODE_ROUTES) {
      const [method, path] = operation.split(' ');
      const response =
        method === 'GET'
          ? await off.http().get(`${path}?token=abc`)
          : await off.http().post(path).send({ email: 'ann@example.com', code: '123456' });
      problems.push(...check(ajv, operation, response, 404).problems);
    }
    expect(problems).toEqual([]);
  });
});

describe('OpenAPI conformance where every user must have a second factor', () => {
  let strict: TestApp;
  beforeAll(async () => {
    strict = await startTestApp({ MFA_REQUIRED_ROLES: 'user,admin' });
  });
  afterAll(() => strict?.close());

  it('answers 403 MFA_ENROLMENT_REQUIRED as documented wherever the document says it may', async () => {
    const { access } = await registerAndLogin(strict);
    const problems: string[] = [];
    for (const operation of ENROLMENT_GUARDED) {
      const [method, path] = operation.split(' ');
      const verb = method.toLowerCase() as 'get' | 'post' | 'patch' | 'put' | 'delete';
      const client = strict.http();
      const request = client[verb](path.replace('{id}', 'user_000000000000000000')).set(
        'Authorization',
        `Bearer ${access}`,
      );
      problems.push(
        ...check(ajv, operation, await (verb === 'get' ? request : request.send({})), 403).problems,
      );
    }
    expect(problems).toEqual([]);
    expect(ENROLMENT_GUARDED.length).toBeGreaterThan(10);
    expect(ENROLMENT_GUARDED).not.toContain('GET /api/v1/users/me');
  });
});
