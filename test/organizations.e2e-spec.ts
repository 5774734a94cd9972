import { randomUUID } from 'node:crypto';
import * as jwt from 'jsonwebtoken';
import { Response } from 'supertest';
import { DomainEvent } from '../src/events/domain-event.catalogue';
import { DomainEvents } from '../src/events/domain-events.service';
import { OrganizationInvitation } from '../src/organizations/organization-invitation.entity';
import { UserDirectory } from '../src/users/user-directory.service';
import { signAccess } from './support/access-tokens';
import { PASSWORD, cookiesOf, expectError, uniqueUser } from './support/auth-helpers';
import { ReceivedMail, SmtpSink } from './support/mailbox';
import { eventually } from './support/shared-redis';
import { APP_ORIGIN, TestApp, startTestApp } from './support/test-app';

const API = '/api/v1';
const ORGS = `${API}/organizations`;

interface Session {
  user: { id: string; email: string; username: string };
  access: string;
  refresh: string;
  credentials: { email: string; username: string; password: string };
}

type Claims = Record<string, unknown>;
const claimsOf = (token: string) => jwt.decode(token) as Claims;

/**
 * Issue 36, organizations: every route of an organization for each role and for a non-member,
 * the last owner, invitations mailed through a real SMTP server (mismatch, used, withdrawn,
 * expired, an address without an account), the active organization in a session's tokens across
 * refreshes and after a removal or a demotion, an account's deletion, and the administrators'
 * listing. Runs on SQLite and, in CI's second pass, on MariaDB and Fastify.
 */
describe('organizations', () => {
  let t: TestApp;
  let sink: SmtpSink;
  const events: DomainEvent[] = [];

  beforeAll(async () => {
    sink = await new SmtpSink().start();
    t = await startTestApp({ SMTP_URL: sink.url });
    t.app.get(DomainEvents).onTransaction((_manager, event) => {
      events.push(event);
      return Promise.resolve();
    });
  });
  afterAll(async () => {
    await t.close();
    await sink.stop();
  });

  const as = (session: { access: string } | undefined) => {
    const auth = <R extends { set(name: string, value: string): R }>(request: R): R =>
      session ? request.set('Authorization', `Bearer ${session.access}`) : request;
    return {
      get: (path: string) => auth(t.http().get(path)),
      post: (path: string, body?: object) => auth(t.http().post(path)).send(body),
      patch: (path: string, body?: object) => auth(t.http().patch(path)).send(body),
      delete: (path: string, body?: object) => auth(t.http().delete(path)).send(body),
    };
  };

  /** A login whose tokens come in the body, as a non-browser client takes them. */
  async function signIn(credentials: Session['credentials']): Promise<Session> {
    const response = await t
      .http()
      .post(`${API}/auth/login`)
      .set('X-Token-Delivery', 'body')
      .send({ email: credentials.email, password: credentials.password })
      .expect(200);
    const body = response.body as { access_token: string; refresh_token: string };
    const claims = claimsOf(body.access_token);
    return {
      user: { id: claims.sub as string, email: credentials.email, username: credentials.username },
      access: body.access_token,
      refresh: body.refresh_token,
      credentials,
    };
  }

  /** Registered, its address verified through the mailed link, signed in. */
  async function account(prefix = 'org', credentials = uniqueUser(prefix)): Promise<Session> {
    await t.http().post(`${API}/auth/register`).send(credentials).expect(201);
    await eventually(() => sink.to(credentials.email).length > 0, 5000);
    const mail = sink.to(credentials.email).at(-1)!;
    await t.http().post(`${API}/auth/verify-email`).send({ token: mail.token }).expect(200);
    return signIn(credentials);
  }

  async function unverified(prefix = 'unverified'): Promise<Session> {
    const credentials = uniqueUser(prefix);
    await t.http().post(`${API}/auth/register`).send(credentials).expect(201);
    return signIn(credentials);
  }

  async function organization(owner: Session, name = `Org ${randomUUID().slice(0, 8)}`) {
    const created = await as(owner).post(ORGS, { name }).expect(201);
    return created.body.data.organization as { id: string; name: string; slug: string };
  }

  const invitationOf = (mail: ReceivedMail) => new URL(mail.link).searchParams.get('invitation')!;

  /** The mails to an address, whatever case it was typed in. */
  const mailsTo = (email: string) =>
    sink.received.filter((mail) => mail.to.toLowerCase() === email.toLowerCase());

  /** An invitation mailed to `email`, and its token from the mail as received. */
  async function invite(by: Session, orgId: string, email: string, role = 'member') {
    const before = mailsTo(email).length;
    const response = await as(by)
      .post(`${ORGS}/${orgId}/invitations`, { email, role, applicationUrl: `${APP_ORIGIN}/join` })
      .expect(201);
    await eventually(() => mailsTo(email).length > before, 5000);
    const mail = mailsTo(email).at(-1)!;
    return { invitation: response.body.data.invitation, mail, token: invitationOf(mail) };
  }

  /** `owner` with `admin` and `member` of one organization, each joined by invitation. */
  async function team() {
    const owner = await account('owner');
    const org = await organization(owner);
    const admin = await account('admin');
    const member = await account('member');
    for (const [who, role] of [
      [admin, 'admin'],
      [member, 'member'],
    ] as const) {
      const { token } = await invite(owner, org.id, who.credentials.email, role);
      await as(who).post(`${API}/invitations/accept`, { token }).expect(200);
    }
    return { owner, admin, member, org };
  }

  const refresh = (token: string) =>
    t
      .http()
      .post(`${API}/auth/refresh`)
      .set('X-Token-Delivery', 'body')
      .set('Cookie', `refresh_token=${token}`);

  /** The session's next refresh: its new tokens. */
  async function refreshed(session: Session): Promise<Session> {
    const response = await refresh(session.refresh).expect(200);
    return { ...session, access: response.body.access_token, refresh: response.body.refresh_token };
  }

  describe('creating and reading', () => {
    it('makes the creator owner, derives a slug, and lists the caller its organizations', async () => {
      const owner = await account();
      const created = await as(owner).post(ORGS, { name: '  Ünïted Wídgets & Co  ' });
      expect(created.status).toBe(201);
      expect(created.body).toEqual({
        success: true,
        message: 'Organization created',
        data: {
          organization: {
            id: expect.stringMatching(/^org_\d{18}$/),
            name: 'Ünïted Wídgets & Co',
            slug: expect.stringMatching(/^united-widgets-co(-\d{4})?$/),
            role: 'owner',
            created_at: expect.any(String),
          },
        },
      });
      const id = created.body.data.organization.id as string;
      const listed = await as(owner).get(ORGS).expect(200);
      expect(listed.body.data).toEqual({ organizations: [created.body.data.organization] });
      const read = await as(owner).get(`${ORGS}/${id}`).expect(200);
      expect(read.body.data.organization).toEqual(created.body.data.organization);
      // Another user sees none of it.
      const other = await account();
      expect((await as(other).get(ORGS).expect(200)).body.data).toEqual({ organizations: [] });
      expect(events).toContainEqual(
        expect.objectContaining({
          type: 'organization.created',
          data: { organization: expect.objectContaining({ id }), userId: owner.user.id },
        }),
      );
    });

    it('refuses a slug taken (409 ORGANIZATION_EXISTS) or malformed (400), and a bad name', async () => {
      const owner = await account();
      const slug = `acme-${randomUUID().slice(0, 8)}`;
      await as(owner).post(ORGS, { name: 'Acme', slug }).expect(201);
      expectError(await as(owner).post(ORGS, { name: 'Acme 2', slug }), 409, 'ORGANIZATION_EXISTS');
      for (const body of [
        { name: 'x', slug: 'A_B' },
        { name: 'x', slug: 'ab' },
        { name: 'x', slug: '-abc' },
        { name: '' },
        { name: 'x'.repeat(101) },
        {},
        { name: 'x', extra: 1 },
      ]) {
        expectError(await as(owner).post(ORGS, body), 400, 'VALIDATION_ERROR');
      }
      // A name's derived slug that is taken gets a suffix rather than a refusal.
      const again = await as(owner).post(ORGS, { name: slug }).expect(201);
      expect(again.body.data.organization.slug).toMatch(new RegExp(`^${slug}-\\d{4}$`));
    });

    it('refuses every route to nobody with 401', async () => {
      const { org } = await team();
      expectError(await as(undefined).get(ORGS), 401, 'INVALID_TOKEN');
      expectError(await as(undefined).get(`${ORGS}/${org.id}`), 401, 'INVALID_TOKEN');
      expectError(
        await as(undefined).post(`${API}/invitations/accept`, { token: 'x' }),
        401,
        'INVALID_TOKEN',
      );
      expectError(
        await as(undefined).post(`${API}/auth/organization`, { organization_id: null }),
        401,
        'INVALID_TOKEN',
      );
    });
  });

  /** Every route of one organization, as `who` would call it. */
  const routes = (orgId: string, userId: string, invitationId: string) =>
    [
      ['read', (s: Session) => as(s).get(`${ORGS}/${orgId}`)],
      ['rename', (s: Session) => as(s).patch(`${ORGS}/${orgId}`, { name: 'Renamed' })],
      ['delete', (s: Session) => as(s).delete(`${ORGS}/${orgId}`)],
      ['members', (s: Session) => as(s).get(`${ORGS}/${orgId}/members`)],
      [
        'role',
        (s: Session) => as(s).patch(`${ORGS}/${orgId}/members/${userId}`, { role: 'admin' }),
      ],
      ['remove', (s: Session) => as(s).delete(`${ORGS}/${orgId}/members/${userId}`)],
      [
        'invite',
        (s: Session) =>
          as(s).post(`${ORGS}/${orgId}/invitations`, { email: 'x@example.com', role: 'member' }),
      ],
      ['invitations', (s: Session) => as(s).get(`${ORGS}/${orgId}/invitations`)],
      ['withdraw', (s: Session) => as(s).delete(`${ORGS}/${orgId}/invitations/${invitationId}`)],
    ] as const;

  describe('who may do what', () => {
    it('answers a non-member 404 ORGANIZATION_NOT_FOUND on every route, as for no organization', async () => {
      const { owner, member, org } = await team();
      const { invitation } = await invite(owner, org.id, `someone-${randomUUID()}@example.com`);
      const stranger = await account('stranger');
      for (const id of [org.id, 'org_000000000000000000']) {
        for (const [name, send] of routes(id, member.user.id, invitation.id)) {
          const response = await send(stranger);
          expect({ name, status: response.status, error: response.body.error }).toEqual({
            name,
            status: 404,
            error: 'ORGANIZATION_NOT_FOUND',
          });
        }
      }
      // Nothing changed.
      const members = await as(owner).get(`${ORGS}/${org.id}/members`).expect(200);
      expect(members.body.data.members).toHaveLength(3);
      expect(
        (await as(owner).get(`${ORGS}/${org.id}/invitations`)).body.data.invitations,
      ).toHaveLength(1);
    });

    it('pages the members in the order they joined, and lists them all without a page', async () => {
      const { owner, admin, member, org } = await team();
      const ids = async (query: string) =>
        (
          (await as(member).get(`${ORGS}/${org.id}/members${query}`).expect(200)).body.data
            .members as Array<{ user_id: string }>
        ).map((entry) => entry.user_id);
      const all = [owner.user.id, admin.user.id, member.user.id];
      expect(await ids('')).toEqual(all);
      expect(await ids('?limit=2')).toEqual(all.slice(0, 2));
      expect(await ids('?page=2&limit=2')).toEqual(all.slice(2));
      expect(await ids('?page=3&limit=2')).toEqual([]);
      expect(await ids('?page=1')).toEqual(all);
      for (const [query, field] of [
        ['?limit=0', 'limit'],
        ['?limit=101', 'limit'],
        ['?page=0', 'page'],
        ['?page=x&limit=2', 'page'],
        ['?limit=2&limit=3', 'limit'],
      ]) {
        const response = await as(member).get(`${ORGS}/${org.id}/members${query}`);
        expectError(response, 400, 'VALIDATION_ERROR');
        expect(response.body.details).toEqual([{ field, message: expect.stringContaining(field) }]);
      }
    });

    it('refuses a member everything but reading and leaving (403 FORBIDDEN)', async () => {
      const { owner, admin, member, org } = await team();
      const { invitation } = await invite(owner, org.id, `someone-${randomUUID()}@example.com`);
      const refused = ['rename', 'delete', 'role', 'remove', 'invite', 'invitations', 'withdraw'];
      for (const [name, send] of routes(org.id, admin.user.id, invitation.id)) {
        if (!refused.includes(name)) continue;
        const response = await send(member);
        expect({ name, status: response.status, error: response.body.error }).toEqual({
          name,
          status: 403,
          error: 'FORBIDDEN',
        });
      }
      const members = await as(member).get(`${ORGS}/${org.id}/members`).expect(200);
      expect(members.body.data.members).toEqual([
        {
          user_id: owner.user.id,
          email: owner.user.email,
          username: owner.user.username,
          role: 'owner',
          joined_at: expect.any(String),
        },
        {
          user_id: admin.user.id,
          email: admin.user.email,
          username: admin.user.username,
          role: 'admin',
          joined_at: expect.any(String),
        },
        {
          user_id: member.user.id,
          email: member.user.email,
          username: member.user.username,
          role: 'member',
          joined_at: expect.any(String),
        },
      ]);
    });

    it("refuses an admin the owner's part: deleting, the slug, owners, making owners", async () => {
      const { owner, admin, member, org } = await team();
      const base = `${ORGS}/${org.id}`;
      expectError(await as(admin).delete(base), 403, 'FORBIDDEN');
      expectError(
        await as(admin).patch(base, { slug: `s-${randomUUID().slice(0, 8)}` }),
        403,
        'FORBIDDEN',
      );
      expectError(
        await as(admin).patch(`${base}/members/${owner.user.id}`, { role: 'member' }),
        403,
        'FORBIDDEN',
      );
      expectError(
        await as(admin).patch(`${base}/members/${member.user.id}`, { role: 'owner' }),
        403,
        'FORBIDDEN',
      );
      expectError(await as(admin).delete(`${base}/members/${owner.user.id}`), 403, 'FORBIDDEN');
      expectError(
        await as(admin).post(`${base}/invitations`, { email: 'x@example.com', role: 'owner' }),
        403,
        'FORBIDDEN',
      );
      // What an admin may do: rename, change a member's role, invite, remove a member.
      const renamed = await as(admin).patch(base, { name: 'Renamed' }).expect(200);
      expect(renamed.body.data.organization).toMatchObject({ name: 'Renamed', role: 'admin' });
      const promoted = await as(admin).patch(`${base}/members/${member.user.id}`, {
        role: 'admin',
      });
      expect(promoted.status).toBe(200);
      expect(promoted.body.data.member).toMatchObject({ user_id: member.user.id, role: 'admin' });
      expectError(
        await as(admin).patch(`${base}/members/${member.user.id}`, { role: 'boss' }),
        400,
        'VALIDATION_ERROR',
      );
      await as(admin).delete(`${base}/members/${member.user.id}`).expect(200);
      expectError(await as(member).get(base), 404, 'ORGANIZATION_NOT_FOUND');
      expectError(
        await as(admin).patch(`${base}/members/${member.user.id}`, { role: 'member' }),
        404,
        'ORGANIZATION_NOT_FOUND',
      );
      expect(events).toContainEqual(
        expect.objectContaining({
          type: 'organization.updated',
          data: {
            organization: expect.objectContaining({ id: org.id, name: 'Renamed' }),
            changes: ['name'],
          },
        }),
      );
    });

    it('applies a demotion or a removal at once, to tokens issued before it', async () => {
      const { owner, admin, org } = await team();
      const base = `${ORGS}/${org.id}`;
      await as(admin).get(`${base}/invitations`).expect(200);
      await as(owner).patch(`${base}/members/${admin.user.id}`, { role: 'member' }).expect(200);
      expectError(await as(admin).get(`${base}/invitations`), 403, 'FORBIDDEN');
      await as(owner).delete(`${base}/members/${admin.user.id}`).expect(200);
      expectError(await as(admin).get(base), 404, 'ORGANIZATION_NOT_FOUND');
      expect(events).toContainEqual(
        expect.objectContaining({
          type: 'organization.member_role_changed',
          data: expect.objectContaining({
            userId: admin.user.id,
            role: 'member',
            previousRole: 'admin',
          }),
        }),
      );
      expect(events).toContainEqual(
        expect.objectContaining({
          type: 'organization.member_removed',
          data: expect.objectContaining({ userId: admin.user.id }),
        }),
      );
    });

    it('lets a member leave', async () => {
      const { owner, member, org } = await team();
      await as(member).delete(`${ORGS}/${org.id}/members/${member.user.id}`).expect(200);
      expect((await as(member).get(ORGS)).body.data.organizations).toEqual([]);
      expect((await as(owner).get(`${ORGS}/${org.id}/members`)).body.data.members).toHaveLength(2);
    });
  });

  describe('the last owner', () => {
    it('cannot be demoted or removed, nor leave, until another owner stays (409 LAST_OWNER)', async () => {
      const { owner, admin, org } = await team();
      const base = `${ORGS}/${org.id}`;
      expectError(
        await as(owner).patch(`${base}/members/${owner.user.id}`, { role: 'admin' }),
        409,
        'LAST_OWNER',
      );
      expectError(await as(owner).delete(`${base}/members/${owner.user.id}`), 409, 'LAST_OWNER');
      await as(owner).patch(`${base}/members/${admin.user.id}`, { role: 'owner' }).expect(200);
      // Two owners: either may go, not both.
      await as(owner).delete(`${base}/members/${owner.user.id}`).expect(200);
      expectError(await as(admin).delete(`${base}/members/${admin.user.id}`), 409, 'LAST_OWNER');
      expectError(
        await as(admin).patch(`${base}/members/${admin.user.id}`, { role: 'member' }),
        409,
        'LAST_OWNER',
      );
    });
  });

  describe('deleting an organization', () => {
    it('takes an owner with a recent sign-in, and ends its memberships and invitations', async () => {
      const { owner, member, org } = await team();
      const { token } = await invite(owner, org.id, `later-${randomUUID()}@example.com`);
      const old = { access: aged(owner.access, 3600) };
      expectError(await as(old).delete(`${ORGS}/${org.id}`), 403, 'REAUTHENTICATION_REQUIRED');
      const deleted = await as(owner).delete(`${ORGS}/${org.id}`);
      expect(deleted.body).toEqual({ success: true, message: 'Organization deleted' });
      expectError(await as(owner).get(`${ORGS}/${org.id}`), 404, 'ORGANIZATION_NOT_FOUND');
      expect((await as(member).get(ORGS)).body.data.organizations).toEqual([]);
      const rows = (table: string) =>
        t.dataSource.query(`SELECT * FROM ${table} WHERE organization_id = ?`, [org.id]);
      expect(await rows('organization_members')).toEqual([]);
      expect(await rows('organization_invitations')).toEqual([]);
      const invited = await account('late');
      expectError(
        await as(invited).post(`${API}/invitations/accept`, { token }),
        401,
        'INVALID_TOKEN',
      );
      expect(events).toContainEqual(
        expect.objectContaining({
          type: 'organization.deleted',
          data: { organization: expect.objectContaining({ id: org.id }) },
        }),
      );
    });
  });

  /** The access token re-signed as if its session had signed in `seconds` ago. */
  function aged(access: string, seconds: number): string {
    const claims = claimsOf(access);
    return signAccess({
      ...claims,
      jti: randomUUID(),
      auth_time: Math.floor(Date.now() / 1000) - seconds,
    });
  }

  describe('invitations', () => {
    it('mails a link to the application, which the invited account accepts once', async () => {
      const owner = await account('owner');
      const org = await organization(owner, 'Mailed Org');
      const invited = await account('invited');
      const { invitation, mail, token } = await invite(
        owner,
        org.id,
        invited.credentials.email,
        'admin',
      );
      expect(invitation).toEqual({
        id: expect.stringMatching(/^inv_\d{18}$/),
        email: invited.credentials.email,
        role: 'admin',
        expires_at: expect.any(String),
      });
      const week = new Date(invitation.expires_at as string).getTime() - Date.now();
      expect(week).toBeGreaterThan(7 * 86400_000 - 60_000);
      expect(week).toBeLessThanOrEqual(7 * 86400_000);
      expect(mail.to).toBe(invited.credentials.email);
      expect(mail.subject).toBe('You are invited to join an organization on Auth Service');
      expect(mail.text).toContain(`${owner.user.username} invites you`);
      expect(mail.text).toContain('Mailed Org');
      expect(mail.text).toContain('7 days');
      expect(mail.link).toMatch(/^http:\/\/localhost:5173\/join\?invitation=[\w-]{43}$/);
      expect(mail.raw).not.toContain(invitation.id);
      // Stored hashed: the token is nowhere in the table.
      const stored = await t.dataSource.query(
        'SELECT * FROM organization_invitations WHERE id = ?',
        [invitation.id],
      );
      expect(JSON.stringify(stored)).not.toContain(token);
      const listed = await as(owner).get(`${ORGS}/${org.id}/invitations`).expect(200);
      expect(listed.body.data.invitations).toEqual([invitation]);

      const accepted = await as(invited).post(`${API}/invitations/accept`, { token });
      expect(accepted.status).toBe(200);
      expect(accepted.body).toEqual({
        success: true,
        message: 'Invitation accepted',
        data: { organization: expect.objectContaining({ id: org.id, role: 'admin' }) },
      });
      expect((await as(owner).get(`${ORGS}/${org.id}/invitations`)).body.data.invitations).toEqual(
        [],
      );
      refusedLink(await as(invited).post(`${API}/invitations/accept`, { token }), 'used');
      expectError(
        await as(owner).post(`${ORGS}/${org.id}/invitations`, {
          email: invited.credentials.email,
          role: 'member',
        }),
        409,
        'ALREADY_MEMBER',
      );
      expect(events.map((event) => event.type)).toEqual(
        expect.arrayContaining([
          'organization.invitation_created',
          'organization.invitation_accepted',
          'organization.member_added',
        ]),
      );
    });

    it('links to PUBLIC_URL without an application URL, and refuses one not in APP_ORIGINS', async () => {
      const owner = await account('owner');
      const org = await organization(owner);
      const email = `plain-${randomUUID()}@example.com`;
      await as(owner).post(`${ORGS}/${org.id}/invitations`, { email, role: 'member' }).expect(201);
      await eventually(() => sink.to(email).length > 0, 5000);
      expect(sink.to(email)[0].link).toMatch(/^http:\/\/localhost:3000\/\?invitation=[\w-]{43}$/);
      const refused = await as(owner).post(`${ORGS}/${org.id}/invitations`, {
        email,
        role: 'member',
        applicationUrl: 'https://evil.example/join',
      });
      expectError(refused, 400, 'VALIDATION_ERROR');
      expectError(
        await as(owner).post(`${ORGS}/${org.id}/invitations`, { email: 'nope', role: 'member' }),
        400,
        'VALIDATION_ERROR',
      );
    });

    it('refuses another account, and the invited address until it is verified (403)', async () => {
      const owner = await account('owner');
      const org = await organization(owner);
      const invitee = await unverified('pending');
      const other = await account('other');
      const { token } = await invite(owner, org.id, invitee.credentials.email);
      for (const who of [other, invitee]) {
        expectError(
          await as(who).post(`${API}/invitations/accept`, { token }),
          403,
          'INVITATION_EMAIL_MISMATCH',
        );
      }
      // Verified now: it works (the mismatch did not use it up).
      const mail = sink.to(invitee.credentials.email).find((m) => m.token)!;
      await t.http().post(`${API}/auth/verify-email`).send({ token: mail.token }).expect(200);
      await as(invitee).post(`${API}/invitations/accept`, { token }).expect(200);
    });

    it('lets an address without an account register, verify and accept', async () => {
      const owner = await account('owner');
      const org = await organization(owner);
      const credentials = uniqueUser('newcomer');
      const { token } = await invite(owner, org.id, credentials.email.toUpperCase());
      const newcomer = await account('newcomer', credentials);
      const accepted = await as(newcomer).post(`${API}/invitations/accept`, { token }).expect(200);
      expect(accepted.body.data.organization).toMatchObject({ id: org.id, role: 'member' });
    });

    it('refuses a withdrawn, an expired or an unknown invitation with 401 INVALID_TOKEN', async () => {
      const owner = await account('owner');
      const org = await organization(owner);
      const invitee = await account('invitee');
      const email = invitee.credentials.email;
      const first = await invite(owner, org.id, email);
      await as(owner).delete(`${ORGS}/${org.id}/invitations/${first.invitation.id}`).expect(200);
      refusedLink(
        await as(invitee).post(`${API}/invitations/accept`, { token: first.token }),
        'withdrawn',
      );
      expectError(
        await as(owner).delete(`${ORGS}/${org.id}/invitations/${first.invitation.id}`),
        404,
        'ORGANIZATION_NOT_FOUND',
      );

      // A newer invitation to the same address withdraws the older one.
      const second = await invite(owner, org.id, email);
      const third = await invite(owner, org.id, email);
      refusedLink(
        await as(invitee).post(`${API}/invitations/accept`, { token: second.token }),
        'withdrawn',
      );

      await t.dataSource
        .getRepository(OrganizationInvitation)
        .update({ id: third.invitation.id }, { expiresAt: new Date(Date.now() - 1000) });
      refusedLink(
        await as(invitee).post(`${API}/invitations/accept`, { token: third.token }),
        'expired',
      );
      const unknown = await as(invitee).post(`${API}/invitations/accept`, {
        token: 'x'.repeat(43),
      });
      expectError(unknown, 401, 'INVALID_TOKEN');
      expect(unknown.body.details).toBeUndefined();
      expectError(await as(invitee).post(`${API}/invitations/accept`, {}), 400, 'VALIDATION_ERROR');
      expect((await as(invitee).get(ORGS)).body.data.organizations).toEqual([]);
    });
  });

  function refusedLink(response: Response, reason: string): void {
    expectError(response, 401, 'INVALID_TOKEN');
    expect(response.body.details).toEqual([expect.objectContaining({ field: 'token', reason })]);
  }

  describe('the active organization', () => {
    const choose = (session: { access: string }, organization_id: string | null) =>
      as(session)
        .post(`${API}/auth/organization`, { organization_id })
        .set('X-Token-Delivery', 'body');

    it('is carried by the session tokens across refreshes, with the stored role', async () => {
      const { owner, member, org } = await team();
      const before = claimsOf(member.access);
      expect(before.org_id).toBeUndefined();
      const chosen = await choose(member, org.id);
      expect(chosen.status).toBe(200);
      const access = chosen.body.access_token as string;
      expect(claimsOf(access)).toMatchObject({
        org_id: org.id,
        org_role: 'member',
        sid: before.sid,
        amr: before.amr,
        auth_time: before.auth_time,
      });
      let session: Session = { ...member, access, refresh: chosen.body.refresh_token };
      // The old refresh token was rotated: presented again later than the grace it is theft,
      // within it the same successor; the new one goes on.
      session = await refreshed(session);
      expect(claimsOf(session.access)).toMatchObject({ org_id: org.id, org_role: 'member' });

      // Promoted: the next refresh carries the new role.
      await as(owner)
        .patch(`${ORGS}/${org.id}/members/${member.user.id}`, { role: 'admin' })
        .expect(200);
      session = await refreshed(session);
      expect(claimsOf(session.access)).toMatchObject({ org_id: org.id, org_role: 'admin' });

      // Another session of the same user carries none.
      const other = await signIn(member.credentials);
      expect(claimsOf((await refreshed(other)).access).org_id).toBeUndefined();

      // Removed: the next refresh carries no organization, and none later on.
      await as(owner).delete(`${ORGS}/${org.id}/members/${member.user.id}`).expect(200);
      session = await refreshed(session);
      expect(claimsOf(session.access).org_id).toBeUndefined();
      expect(claimsOf(session.access).org_role).toBeUndefined();
      session = await refreshed(session);
      expect(claimsOf(session.access).org_id).toBeUndefined();
    });

    it('is cleared by null, refused for a non-member (404), and validated', async () => {
      const { owner, org } = await team();
      const stranger = await account('stranger');
      expectError(await choose(stranger, org.id), 404, 'ORGANIZATION_NOT_FOUND');
      expectError(await choose(stranger, 'org_000000000000000000'), 404, 'ORGANIZATION_NOT_FOUND');
      expectError(await as(owner).post(`${API}/auth/organization`, {}), 400, 'VALIDATION_ERROR');
      expectError(
        await as(owner).post(`${API}/auth/organization`, { organization_id: 5 }),
        400,
        'VALIDATION_ERROR',
      );
      const set = await choose(owner, org.id).expect(200);
      expect(claimsOf(set.body.access_token)).toMatchObject({ org_id: org.id, org_role: 'owner' });
      const cleared = await choose({ access: set.body.access_token }, null).expect(200);
      expect(claimsOf(cleared.body.access_token).org_id).toBeUndefined();
      const later = await refresh(cleared.body.refresh_token).expect(200);
      expect(claimsOf(later.body.access_token).org_id).toBeUndefined();
    });

    it('is read on refresh only for a session that chose one, as its refresh token says', async () => {
      const { member, org } = await team();
      const session = await signIn(member.credentials);
      expect(claimsOf(session.refresh).mcl).toBe(false);
      const plain = await refresh(session.refresh).expect(200);
      expect(claimsOf(plain.body.refresh_token as string).mcl).toBe(false);
      const chosen = await choose({ access: plain.body.access_token as string }, org.id).expect(
        200,
      );
      expect(claimsOf(chosen.body.refresh_token as string).mcl).toBe(true);
      const later = await refresh(chosen.body.refresh_token as string).expect(200);
      expect(claimsOf(later.body.access_token as string)).toMatchObject({ org_id: org.id });
      expect(claimsOf(later.body.refresh_token as string).mcl).toBe(true);
      const cleared = await choose({ access: later.body.access_token as string }, null).expect(200);
      expect(claimsOf(cleared.body.refresh_token as string).mcl).toBe(false);
      const after = await refresh(cleared.body.refresh_token as string).expect(200);
      expect(claimsOf(after.body.access_token as string).org_id).toBeUndefined();
      expect(claimsOf(after.body.refresh_token as string).mcl).toBe(false);
    });

    it('answers a browser with new cookies, as a refresh does', async () => {
      const { owner, org } = await team();
      const { email, password } = owner.credentials;
      const login = await t.http().post(`${API}/auth/login`).send({ email, password }).expect(200);
      const cookies = cookiesOf(login);
      const jar = `access_token=${cookies.access_token.value}; refresh_token=${cookies.refresh_token.value}`;
      const chosen = await t
        .http()
        .post(`${API}/auth/organization`)
        .set('Cookie', jar)
        .set('Origin', APP_ORIGIN)
        .send({ organization_id: org.id })
        .expect(200);
      expect(chosen.body).toMatchObject({
        success: true,
        message: 'Active organization set',
        data: { user: { id: owner.user.id } },
      });
      const renewed = cookiesOf(chosen);
      expect(claimsOf(renewed.access_token.value)).toMatchObject({
        org_id: org.id,
        org_role: 'owner',
      });
      expect(renewed.refresh_token.value).not.toBe(cookies.refresh_token.value);
      const next = await refresh(renewed.refresh_token.value).expect(200);
      expect(claimsOf(next.body.access_token)).toMatchObject({ org_id: org.id });
      // A foreign origin is refused as on any cookie-authenticated change.
      const foreign = await t
        .http()
        .post(`${API}/auth/organization`)
        .set('Cookie', jar)
        .set('Origin', 'https://evil.example')
        .send({ organization_id: null });
      expectError(foreign, 403, 'FORBIDDEN_ORIGIN');
    });
  });

  describe("an account's deletion", () => {
    it('ends its memberships, hands an organization to its oldest admin, deletes one without', async () => {
      const { owner, admin, org } = await team();
      const alone = await organization(owner, 'Alone');
      await t
        .http()
        .delete(`${API}/users/me`)
        .set('Authorization', `Bearer ${owner.access}`)
        .send({ password: PASSWORD })
        .expect(200);
      const members = await as(admin).get(`${ORGS}/${org.id}/members`).expect(200);
      expect(
        (members.body.data.members as Array<{ user_id: string; role: string }>).map((m) => [
          m.user_id,
          m.role,
        ]),
      ).toEqual([
        [admin.user.id, 'owner'],
        [expect.any(String), 'member'],
      ]);
      expect(
        await t.dataSource.query('SELECT id FROM organizations WHERE id = ?', [alone.id]),
      ).toEqual([]);
    });
  });

  const idsOf = (response: Response) =>
    (response.body.data.organizations as Array<{ id: string }>).map((o) => o.id);

  describe("the service's administrators", () => {
    it("list every organization, searched and paged, and a user's organizations", async () => {
      const admin = await account('siteadmin');
      await t.app.get(UserDirectory).setRole(admin.user.id, 'admin');
      const owner = await account('owner');
      const tag = randomUUID().slice(0, 8);
      const first = await organization(owner, `Zeta ${tag} one`);
      const second = await organization(owner, `Zeta ${tag} two`);
      const list = (query: string) => as(admin).get(`${API}/admin/organizations${query}`);
      const page = await list(`?search=zeta%20${tag}&pageSize=1`).expect(200);
      expect(page.body.data).toEqual({
        organizations: [
          {
            id: second.id,
            name: second.name,
            slug: second.slug,
            members: 1,
            created_at: expect.any(String),
          },
        ],
        page: 1,
        page_size: 1,
        total: 2,
      });
      const next = await list(`?search=zeta%20${tag}&pageSize=1&page=2`).expect(200);
      expect(idsOf(next)).toEqual([first.id]);
      expect(idsOf(await list(`?search=${first.slug}`))).toEqual([first.id]);
      expect((await list('?search=%25')).body.data.organizations).toEqual([]);
      expectError(await list('?pageSize=0'), 400, 'VALIDATION_ERROR');
      expectError(await as(owner).get(`${API}/admin/organizations`), 403, 'FORBIDDEN');
      expectError(
        await as({ access: aged(admin.access, 3600) }).get(`${API}/admin/organizations`),
        403,
        'REAUTHENTICATION_REQUIRED',
      );

      const theirs = await as(admin)
        .get(`${API}/admin/users/${owner.user.id}/organizations`)
        .expect(200);
      expect(
        (theirs.body.data.organizations as Array<{ id: string; role: string }>).map((o) => [
          o.id,
          o.role,
        ]),
      ).toEqual([
        [first.id, 'owner'],
        [second.id, 'owner'],
      ]);
      expectError(
        await as(admin).get(`${API}/admin/users/user_000000000000000000/organizations`),
        404,
        'USER_NOT_FOUND',
      );
      expectError(
        await as(owner).get(`${API}/admin/users/${owner.user.id}/organizations`),
        403,
        'FORBIDDEN',
      );
    });
  });
});

/** An app of its own: the cap of two mails per address that every suite but the cap's lifts. */
describe('invitations and the per-recipient mail cap', () => {
  let t: TestApp;
  let sink: SmtpSink;
  beforeAll(async () => {
    sink = await new SmtpSink().start();
    t = await startTestApp({ SMTP_URL: sink.url, MAIL_RECIPIENT_LIMIT: '2' });
  });
  afterAll(async () => {
    await t.close();
    await sink.stop();
  });

  it('refuses a third invitation to one address in the window (429), mailing two', async () => {
    const credentials = uniqueUser('capper');
    await t.http().post(`${API}/auth/register`).send(credentials).expect(201);
    const { email: address, password } = credentials;
    const login = await t
      .http()
      .post(`${API}/auth/login`)
      .send({ email: address, password })
      .expect(200);
    const bearer = `Bearer ${cookiesOf(login).access_token.value}`;
    const created = await t
      .http()
      .post(ORGS)
      .set('Authorization', bearer)
      .send({ name: 'Capped' })
      .expect(201);
    const path = `${ORGS}/${created.body.data.organization.id}/invitations`;
    const email = `capped-${randomUUID()}@example.com`;
    const send = () =>
      t.http().post(path).set('Authorization', bearer).send({ email, role: 'member' });
    await send().expect(201);
    await send().expect(201);
    const third = await send();
    expectError(third, 429, 'RATE_LIMITED');
    expect(Number(third.headers['retry-after'])).toBeGreaterThan(0);
    await eventually(() => sink.to(email).length === 2, 5000);
    // Only the second is open: the third was refused before anything was written.
    const open = await t.http().get(path).set('Authorization', bearer).expect(200);
    expect(open.body.data.invitations).toHaveLength(1);
  });
});
