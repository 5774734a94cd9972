import { IncomingMessage, Server, ServerResponse, createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import * as jwt from 'jsonwebtoken';
import { Webhook } from 'standardwebhooks';
import {
  LoggedIn,
  cookiesOf,
  expectError,
  login,
  refreshWith,
  registerAndLogin,
  uniqueUser,
} from './support/auth-helpers';
import { freePort } from './support/free-port';
import {
  Browser,
  IdentityProviderProcess,
  startIdentityProvider,
} from './support/identity-provider';
import { TeamHooksModule } from './support/team-hooks';
import { APP_ORIGIN, TestApp, startTestApp } from './support/test-app';

const SECRET = `whsec_${Buffer.alloc(32, 5).toString('base64')}`;
const TIMEOUT_MS = 400;
const BACK = `${APP_ORIGIN}/signed-in`;

type BeforeMode = 'allow' | 'reject' | 'garbage' | 'hang' | 'error';
type ClaimsMode = 'claims' | 'garbage' | 'hang';

interface HookCall {
  path: string;
  type: string;
  data: Record<string, unknown>;
}

/**
 * A hooks' receiver on loopback, as a team would write one: every call is verified with the
 * `standardwebhooks` package (a call it refuses is answered 401 and counted), then answered as
 * the test says.
 */
class Receiver {
  before: BeforeMode = 'allow';
  claims: ClaimsMode = 'claims';
  readonly calls: HookCall[] = [];
  readonly unverified: string[] = [];
  private readonly server: Server;
  private readonly verifier = new Webhook(SECRET);

  constructor() {
    this.server = createServer((request, response) => void this.answer(request, response));
  }

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  callsOf(type: string): HookCall[] {
    return this.calls.filter((call) => call.type === type);
  }

  private async answer(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    let event: { type: string; timestamp: string; data: Record<string, unknown> };
    try {
      event = this.verifier.verify(body, request.headers as Record<string, string>) as typeof event;
    } catch (error) {
      this.unverified.push(String(error));
      response.writeHead(401).end();
      return;
    }
    this.calls.push({ path: request.url ?? '', type: event.type, data: event.data });
    const json = (status: number, value: unknown) =>
      response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
    const mode = request.url === '/before' ? this.before : this.claims;
    if (mode === 'hang') return; // never answered: the service's deadline ends the call
    if (mode === 'garbage') {
      response.writeHead(200, { 'content-type': 'text/html' }).end('<html>oops</html>');
    } else if (mode === 'error') {
      json(500, { error: 'down' });
    } else if (mode === 'allow') {
      json(200, { decision: 'allow' });
    } else if (mode === 'reject') {
      json(200, { decision: 'reject', message: 'Sign-ups from this address are closed' });
    } else {
      json(200, {
        claims: {
          tenant: 'acme',
          plan: { tier: 'gold' },
          // Reserved: never replaced.
          sub: 'user_0',
          iss: 'https://evil.example',
          aud: 'elsewhere',
          exp: 1,
          jti: 'fixed',
          sid: 'other-session',
          amr: ['hwk'],
          client_id: 'other-client',
          ver: 99,
          role: 'admin',
          org_id: 'org_1',
          org_role: 'owner',
        },
      });
    }
  }
}

const claimsOf = (token: string) => jwt.decode(token) as Record<string, unknown>;

/** The account exists: its password signs in (a 401 LOGIN_FAILED means nothing was stored). */
async function signsIn(t: TestApp, credentials: { email: string; password: string }) {
  const { email, password } = credentials;
  const answer = await t.http().post('/api/v1/auth/login').send({ email, password });
  return answer.status;
}

/**
 * Issue 35, item 3: the blocking hooks. `before_user_created` before every new account (the
 * password registration, a provider's first sign-in) and `custom_access_token` whenever an
 * access token is issued, called at URLs signed as webhooks and verified by the receiver with
 * the standardwebhooks package, within HOOK_TIMEOUT_MS; a failing hook refuses (closed) or is
 * skipped (open); a team's module provides the same hooks in process.
 */
describe('blocking hooks', () => {
  const receiver = new Receiver();
  let hooks: string;

  beforeAll(async () => {
    hooks = await receiver.start();
  });
  afterAll(() => receiver.stop());
  beforeEach(() => {
    receiver.before = 'allow';
    receiver.claims = 'claims';
  });
  afterEach(() => expect(receiver.unverified).toEqual([]));

  describe('at URLs, failing closed (the default)', () => {
    let t: TestApp;
    let idp: IdentityProviderProcess;
    let base: string;

    beforeAll(async () => {
      const port = await freePort();
      base = `http://127.0.0.1:${port}`;
      idp = await startIdentityProvider([
        {
          client_id: 'auth-service',
          client_secret: 'corp-secret-0123456789',
          redirect_uris: [`${base}/api/v1/auth/providers/corp/callback`],
        },
      ]);
      t = await startTestApp({
        PUBLIC_URL: base,
        COOKIE_SECURE: 'false',
        HOOK_BEFORE_USER_CREATED: `${hooks}/before`,
        HOOK_CUSTOM_ACCESS_TOKEN: `${hooks}/claims`,
        HOOK_SECRET: SECRET,
        HOOK_TIMEOUT_MS: String(TIMEOUT_MS),
        AUTH_PROVIDERS: JSON.stringify([
          {
            id: 'corp',
            type: 'oidc',
            name: 'Corp ID',
            issuer: idp.issuer,
            client_id: 'auth-service',
            client_secret: 'corp-secret-0123456789',
          },
        ]),
      });
      await t.app.listen(port, '127.0.0.1');
    });
    afterAll(async () => {
      await t?.close();
      await idp?.stop();
    });

    it('asks before a registration, signed, with the account and the way in', async () => {
      const credentials = uniqueUser('hooked');
      const answer = await t
        .http()
        .post('/api/v1/auth/register')
        .send({ ...credentials, email: `  ${credentials.email} ` })
        .expect(201);
      expect(answer.body.data.user.email).toBe(credentials.email);
      expect(receiver.callsOf('before_user_created').at(-1)).toEqual({
        path: '/before',
        type: 'before_user_created',
        data: {
          user: { email: credentials.email, username: credentials.username },
          method: 'password',
        },
      });
    });

    it('refuses a registration the hook rejects, with its message, and stores nothing', async () => {
      receiver.before = 'reject';
      const credentials = uniqueUser('rejected');
      const answer = await t.http().post('/api/v1/auth/register').send(credentials);
      expectError(answer, 403, 'REGISTRATION_REJECTED');
      expect(answer.body.message).toBe('Sign-ups from this address are closed');
      expect(await signsIn(t, credentials)).toBe(401);
      // Nothing half-made either: once allowed, the same email and username register.
      receiver.before = 'allow';
      await t.http().post('/api/v1/auth/register').send(credentials).expect(201);
    });

    it.each<[string, BeforeMode]>([
      ['answers something that is not JSON', 'garbage'],
      ['answers 500', 'error'],
      ['does not answer within HOOK_TIMEOUT_MS', 'hang'],
    ])('refuses the registration (503 HOOK_UNAVAILABLE) when the hook %s', async (_, mode) => {
      receiver.before = mode;
      const credentials = uniqueUser(`failing${mode}`);
      const started = Date.now();
      const answer = await t.http().post('/api/v1/auth/register').send(credentials);
      expectError(answer, 503, 'HOOK_UNAVAILABLE');
      expect(answer.headers['retry-after']).toBe('5');
      expect(Date.now() - started).toBeLessThan(TIMEOUT_MS + 3000);
      receiver.before = 'allow';
      expect(await signsIn(t, credentials)).toBe(401);
    });

    it('adds the hook’s claims to the access token at login and refresh, never the reserved ones', async () => {
      const user = await registerAndLogin(t, uniqueUser('claims'));
      const expectCustomised = (access: string, session: LoggedIn) => {
        const claims = claimsOf(access);
        expect(claims).toMatchObject({ tenant: 'acme', plan: { tier: 'gold' } });
        expect(claims).toMatchObject({
          sub: session.user.id,
          iss: base,
          aud: base,
          client_id: 'auth-service',
          ver: 0,
          role: 'user',
          amr: ['pwd'],
        });
        expect(claims.exp).toBe((claims.iat as number) + 900);
        expect(claims.jti).not.toBe('fixed');
        expect(claims.sid).not.toBe('other-session');
        expect(claims).not.toHaveProperty('org_id');
        expect(claims).not.toHaveProperty('org_role');
      };
      expectCustomised(user.access, user);
      // The token works as any other.
      await t
        .http()
        .get('/api/v1/users/me')
        .set('Authorization', `Bearer ${user.access}`)
        .expect(200);

      // The hook saw the user as the profile shows it, and the token's claims whole.
      const asked = receiver.callsOf('custom_access_token').at(-1)!;
      const atLogin = claimsOf(user.access);
      expect(asked.data.user).toMatchObject({
        id: user.user.id,
        email: user.credentials.email,
        username: user.credentials.username,
        role: 'user',
        email_verified: false,
      });
      expect(asked.data.user).not.toHaveProperty('password_hash');
      expect(asked.data.claims).toEqual({
        iss: base,
        aud: base,
        sub: user.user.id,
        iat: atLogin.iat,
        exp: atLogin.exp,
        jti: atLogin.jti,
        sid: atLogin.sid,
        ver: 0,
        role: 'user',
        client_id: 'auth-service',
        auth_time: atLogin.auth_time,
        amr: ['pwd'],
      });

      const refreshed = await refreshWith(t, user.refresh).expect(200);
      const access = cookiesOf(refreshed).access_token.value;
      expectCustomised(access, user);
      expect(claimsOf(access).sid).toBe(atLogin.sid);
    });

    it('refuses a login and a refresh when the token hook fails, leaving no session behind', async () => {
      const user = await registerAndLogin(t, uniqueUser('claimsdown'));
      const sessions = async () =>
        (
          await t
            .http()
            .get('/api/v1/users/me/sessions')
            .set('Authorization', `Bearer ${user.access}`)
            .expect(200)
        ).body.data.sessions as unknown[];
      expect(await sessions()).toHaveLength(1);

      for (const mode of ['garbage', 'hang'] as const) {
        receiver.claims = mode;
        const answer = await t
          .http()
          .post('/api/v1/auth/login')
          .send({ email: user.credentials.email, password: user.credentials.password });
        expectError(answer, 503, 'HOOK_UNAVAILABLE');
        expect(cookiesOf(answer)).not.toHaveProperty('access_token');
        expectError(await refreshWith(t, user.refresh), 503, 'HOOK_UNAVAILABLE');
      }
      receiver.claims = 'claims';
      // The logins that were refused opened no session.
      expect(await sessions()).toHaveLength(1);
    });

    it('asks before an identity provider’s first sign-in makes an account', async () => {
      const email = `fed-${Date.now()}@corp.example`;
      const signIn = async () => {
        const browser = new Browser();
        const start = `${base}/api/v1/auth/providers/corp/start?redirect_to=${encodeURIComponent(BACK)}`;
        const started = await browser.request(start);
        const callback = await browser.signInAtProvider(
          started.headers.get('location')!,
          `sub-${email}:${email}:1`,
          `${base}/api/v1/auth/providers/corp/callback`,
        );
        const answer = await browser.request(callback);
        expect(answer.status).toBe(302);
        return { location: new URL(answer.headers.get('location')!), browser };
      };

      receiver.before = 'reject';
      const rejected = await signIn();
      expect(`${rejected.location.origin}${rejected.location.pathname}`).toBe(BACK);
      expect(rejected.location.searchParams.get('error')).toBe('REGISTRATION_REJECTED');
      expect(rejected.location.searchParams.get('message')).toBe(
        'Sign-ups from this address are closed',
      );
      expect(rejected.browser.cookie(base, 'access_token')).toBeUndefined();
      expect(receiver.callsOf('before_user_created').at(-1)!.data).toEqual({
        user: { email, username: expect.any(String) },
        method: 'identity_provider',
      });
      const stored = await t.dataSource.query<Array<{ n: number | string }>>(
        'SELECT COUNT(*) AS n FROM users WHERE email = ?',
        [email],
      );
      expect(Number(stored[0].n)).toBe(0);

      receiver.before = 'allow';
      const allowed = await signIn();
      expect(allowed.location.searchParams.get('error')).toBeNull();
      const access = allowed.browser.cookie(base, 'access_token')!;
      expect(claimsOf(access)).toMatchObject({ tenant: 'acme', amr: ['fed'] });
    });
  });

  describe('at URLs, failing open', () => {
    let t: TestApp;

    beforeAll(async () => {
      t = await startTestApp({
        HOOK_BEFORE_USER_CREATED: `${hooks}/before`,
        HOOK_CUSTOM_ACCESS_TOKEN: `${hooks}/claims`,
        HOOK_SECRET: SECRET,
        HOOK_TIMEOUT_MS: String(TIMEOUT_MS),
        HOOK_FAILURE: 'open',
      });
    });
    afterAll(() => t?.close());

    it('registers and signs in without the hooks when they fail or are late', async () => {
      receiver.before = 'hang';
      receiver.claims = 'garbage';
      const credentials = uniqueUser('open');
      await t.http().post('/api/v1/auth/register').send(credentials).expect(201);
      const session = await login(t, credentials);
      expect(claimsOf(session.access)).not.toHaveProperty('tenant');
      receiver.claims = 'hang';
      const refreshed = await refreshWith(t, session.refresh).expect(200);
      expect(claimsOf(cookiesOf(refreshed).access_token.value)).not.toHaveProperty('tenant');
    });

    it('still refuses what the hook rejects', async () => {
      receiver.before = 'reject';
      const answer = await t.http().post('/api/v1/auth/register').send(uniqueUser('openreject'));
      expectError(answer, 403, 'REGISTRATION_REJECTED');
    });
  });

  describe('in process, provided by a team’s module', () => {
    let t: TestApp;

    beforeAll(async () => {
      t = await startTestApp({}, { imports: [TeamHooksModule] });
    });
    afterAll(() => t?.close());

    it('refuses what the module rejects, and adds its claims but never the reserved ones', async () => {
      const asked = receiver.calls.length;
      const answer = await t.http().post('/api/v1/auth/register').send(uniqueUser('blocked'));
      expectError(answer, 403, 'REGISTRATION_REJECTED');
      expect(answer.body.message).toBe('Usernames starting with "blocked" are reserved');

      const user = await registerAndLogin(t, uniqueUser('teamed'));
      const claims = claimsOf(user.access);
      expect(claims).toMatchObject({ team: 'core', handle: user.credentials.username });
      expect(claims.sid).not.toBe('replaced');
      const refreshed = await refreshWith(t, user.refresh).expect(200);
      expect(claimsOf(cookiesOf(refreshed).access_token.value)).toMatchObject({
        team: 'core',
        sid: claims.sid,
      });
      // No URL is configured: the receiver heard nothing of this app.
      expect(receiver.calls.length).toBe(asked);
    });
  });
});
