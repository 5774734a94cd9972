import * as jwt from 'jsonwebtoken';
import { DomainEvent } from '../src/events/domain-event.catalogue';
import { DomainEvents } from '../src/events/domain-events.service';
import { Authenticator } from './support/authenticator';
import {
  LoggedIn,
  login as passwordLogin,
  registerAndLogin,
  registerUser,
  uniqueUser,
} from './support/auth-helpers';
import { freePort } from './support/free-port';
import {
  Browser,
  IdentityProviderProcess,
  startIdentityProvider,
} from './support/identity-provider';
import { APP_ORIGIN, TestApp, startTestApp } from './support/test-app';

const BACK = `${APP_ORIGIN}/signed-in`;
const SECRET = 'corp-secret-0123456789';

/**
 * Issue 36, item 5: a provider of AUTH_PROVIDERS that names an organization (`organization:
 * slug`) brings the people who sign in through it into that organization as `member`, through a
 * real OpenID provider (oidc-provider) on loopback. `acme` lists its domains (only verified
 * addresses of them join); `partners` names an organization nobody created.
 */
describe('identity providers that name an organization', () => {
  let t: TestApp;
  let idp: IdentityProviderProcess;
  let base: string;
  let owner: LoggedIn;
  let orgId: string;
  let seq = 0;
  const events: DomainEvent[] = [];

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    const redirect = (id: string) => `${base}/api/v1/auth/providers/${id}/callback`;
    idp = await startIdentityProvider([
      {
        client_id: 'auth-service',
        client_secret: SECRET,
        redirect_uris: [redirect('acme'), redirect('partners')],
      },
    ]);
    const provider = (id: string, extra: object) => ({
      id,
      type: 'oidc',
      name: id,
      issuer: idp.issuer,
      client_id: 'auth-service',
      client_secret: SECRET,
      ...extra,
    });
    t = await startTestApp({
      PUBLIC_URL: base,
      COOKIE_SECURE: 'false',
      AUTH_PROVIDERS: JSON.stringify([
        provider('acme', { organization: 'acme-corp', domains: ['acme.example'] }),
        provider('partners', { organization: 'no-such-org' }),
      ]),
    });
    await t.app.listen(port, '127.0.0.1');
    t.app.get(DomainEvents).onTransaction((_manager, event) => {
      events.push(event);
      return Promise.resolve();
    });
    owner = await registerAndLogin(t, uniqueUser('acme-owner'));
    const created = await as(owner)
      .post('/api/v1/organizations')
      .send({ name: 'Acme', slug: 'acme-corp' })
      .expect(201);
    orgId = created.body.data.organization.id as string;
  });
  afterAll(async () => {
    await t?.close();
    await idp?.stop();
  });

  const as = (session: { access: string }) => ({
    get: (path: string) => t.http().get(path).set('Authorization', `Bearer ${session.access}`),
    post: (path: string) => t.http().post(path).set('Authorization', `Bearer ${session.access}`),
    patch: (path: string) => t.http().patch(path).set('Authorization', `Bearer ${session.access}`),
    delete: (path: string) =>
      t.http().delete(path).set('Authorization', `Bearer ${session.access}`),
  });
  /** A person at the provider: `sub:email:verified`, as the test provider reads its logins. */
  const person = (email: string, verified = true) =>
    `sub-${++seq}-${Date.now()}:${email}:${verified ? 1 : 0}`;
  const address = (prefix: string, domain = 'acme.example') =>
    `${prefix}-${++seq}-${Date.now()}@${domain}`;
  const subOf = (token: string) => (jwt.decode(token) as { sub: string }).sub;

  /** Through the provider and back: the redirect the app gets. */
  async function signIn(login: string, provider = 'acme', browser = new Browser()) {
    const api = (path: string) => `${base}/api/v1${path}`;
    const started = await browser.request(
      api(`/auth/providers/${provider}/start?redirect_to=${encodeURIComponent(BACK)}`),
    );
    expect(started.status).toBe(302);
    const callback = await browser.signInAtProvider(
      started.headers.get('location')!,
      login,
      api(`/auth/providers/${provider}/callback`),
    );
    const answer = await browser.request(callback);
    expect(answer.status).toBe(302);
    return { browser, location: answer.headers.get('location') ?? '' };
  }

  async function signedIn(login: string, provider = 'acme') {
    const { browser, location } = await signIn(login, provider);
    expect(location).toBe(BACK);
    const access = browser.cookie(base, 'access_token')!;
    return { access, userId: subOf(access) };
  }

  /** The owner's view of the organization's members: user id to role. */
  async function members(): Promise<Record<string, string>> {
    const answer = await as(owner).get(`/api/v1/organizations/${orgId}/members`).expect(200);
    const list = answer.body.data.members as Array<{ user_id: string; role: string }>;
    return Object.fromEntries(list.map((member) => [member.user_id, member.role]));
  }

  it('makes a new person of its domains a member, once, and lists the organization to them', async () => {
    const login = person(address('new'));
    const { access, userId } = await signedIn(login);
    expect((await members())[userId]).toBe('member');
    const theirs = await as({ access }).get('/api/v1/organizations').expect(200);
    expect(theirs.body.data.organizations).toEqual([
      expect.objectContaining({ id: orgId, slug: 'acme-corp', role: 'member' }),
    ]);
    expect(events).toContainEqual(
      expect.objectContaining({
        type: 'organization.member_added',
        data: expect.objectContaining({ userId, role: 'member' }) as unknown,
      }),
    );
    // A later sign-in adds nothing: one membership, one event.
    await signedIn(login);
    const added = events.filter(
      (event) => event.type === 'organization.member_added' && event.data.userId === userId,
    );
    expect(added).toHaveLength(1);
  });

  it('keeps a role given since, and takes back a member removed (their provider still vouches)', async () => {
    const login = person(address('kept'));
    const { userId } = await signedIn(login);
    await as(owner)
      .patch(`/api/v1/organizations/${orgId}/members/${userId}`)
      .send({ role: 'admin' })
      .expect(200);
    await signedIn(login);
    expect((await members())[userId]).toBe('admin');

    await as(owner).delete(`/api/v1/organizations/${orgId}/members/${userId}`).expect(200);
    expect((await members())[userId]).toBeUndefined();
    await signedIn(login);
    expect((await members())[userId]).toBe('member');
  });

  it('leaves out an address outside its domains, and one the provider has not verified', async () => {
    const outside = await signedIn(person(address('outside', 'elsewhere.example')));
    const unverified = await signedIn(person(address('unverified'), false));
    const listed = await members();
    expect(listed[outside.userId]).toBeUndefined();
    expect(listed[unverified.userId]).toBeUndefined();
  });

  /** A password account of the provider's domain, its address proven, signed in. */
  async function domainAccount(prefix: string): Promise<LoggedIn> {
    const credentials = { ...uniqueUser(prefix), email: address(prefix) };
    await registerUser(t, credentials);
    // Proven as the mailed link would, before anything of the account is read (and cached).
    await t.dataSource.query('UPDATE users SET email_verified = 1 WHERE email = ?', [
      credentials.email,
    ]);
    return { ...(await passwordLogin(t, credentials)), credentials };
  }

  /** Links the identity `login` to the signed-in account, from the app's own button. */
  async function link(session: LoggedIn, login: string): Promise<void> {
    const browser = new Browser();
    browser.setCookie(base, 'access_token', session.access);
    const api = (path: string) => `${base}/api/v1${path}`;
    const started = await browser.request(
      api(`/users/me/identities/acme/start?redirect_to=${encodeURIComponent(BACK)}`),
    );
    const callback = await browser.signInAtProvider(
      started.headers.get('location')!,
      login,
      api('/auth/providers/acme/callback'),
    );
    expect((await browser.request(callback)).headers.get('location')).toBe(BACK);
  }

  it('makes an account that links its identity a member', async () => {
    const session = await domainAccount('linker');
    expect((await members())[session.user.id]).toBeUndefined();
    await link(session, person(session.credentials.email));
    expect((await members())[session.user.id]).toBe('member');
  });

  it('waits for the second step of an account that has one: no membership before it', async () => {
    const session = await domainAccount('twofactor');
    const bearer = { Authorization: `Bearer ${session.access}` };
    const begun = await t.http().post('/api/v1/users/me/mfa/totp').set(bearer).expect(200);
    const app = new Authenticator(begun.body.data.secret as string);
    await t
      .http()
      .post('/api/v1/users/me/mfa/totp/confirm')
      .set(bearer)
      .send({ code: await app.code() })
      .expect(200);
    const login = person(session.credentials.email);
    await link(session, login);
    // Removed since: only a completed sign-in through the provider brings them back.
    await as(owner).delete(`/api/v1/organizations/${orgId}/members/${session.user.id}`).expect(200);

    const { location } = await signIn(login);
    const fragment = new URLSearchParams(new URL(location).hash.slice(1));
    expect(fragment.get('mfa_required')).toBe('true');
    expect((await members())[session.user.id]).toBeUndefined();
    await t
      .http()
      .post('/api/v1/auth/mfa/verify')
      .send({ challenge: fragment.get('challenge'), code: await app.code() })
      .expect(200);
    expect((await members())[session.user.id]).toBe('member');
    expect(events).toContainEqual(
      expect.objectContaining({
        type: 'session.created',
        data: expect.objectContaining({
          provider: 'acme',
          session: expect.objectContaining({ amr: ['fed', 'otp'] }) as unknown,
        }) as unknown,
      }),
    );
  });

  it('signs people in through a provider whose organization does not exist, making no member', async () => {
    const { access, userId } = await signedIn(
      person(address('partner', 'partner.example')),
      'partners',
    );
    const theirs = await as({ access }).get('/api/v1/organizations').expect(200);
    expect(theirs.body.data.organizations).toEqual([]);
    const rows = await t.dataSource.query<unknown[]>(
      'SELECT organization_id FROM organization_members WHERE user_id = ?',
      [userId],
    );
    expect(rows).toEqual([]);
  });
});
