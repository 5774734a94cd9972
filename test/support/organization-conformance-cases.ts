import { randomUUID } from 'node:crypto';
import * as jwt from 'jsonwebtoken';
import { Response } from 'supertest';
import { signAccess } from './access-tokens';
import { LoggedIn, registerAndLogin, uniqueUser } from './auth-helpers';
import { APP_ORIGIN, TestApp } from './test-app';

type Case = [expected: number, request: () => PromiseLike<Response>];
type Method = 'get' | 'post' | 'patch' | 'delete';

const ORGS = '/api/v1/organizations';
const NO_ORG = `${ORGS}/org_000000000000000000`;

/**
 * The conformance cases of the organization routes (issue 36), for the OpenAPI conformance suite:
 * a success and each cheap documented failure of every route, each against accounts and
 * organizations of its own. `app` and `admin` are the suite's, read when a case runs.
 */
export function organizationCases(
  app: () => TestApp,
  admin: () => LoggedIn,
): Record<string, () => Case[]> {
  // The suite's app exists once its beforeAll has run, before any case does.
  const t = { http: () => app().http(), outbox: () => app().outbox() } as TestApp;
  const by = (who: { access: string } | undefined, method: Method, path: string) => {
    const request = t.http()[method](path);
    return who ? request.set('Authorization', `Bearer ${who.access}`) : request;
  };
  const text = (who: { access: string }, method: Method, path: string) =>
    by(who, method, path).set('Content-Type', 'text/plain').send('plain text');

  /** A fresh account whose address is verified through its mailed link. */
  const verified = async (): Promise<LoggedIn> => {
    const account = await registerAndLogin(t, uniqueUser('orgconf'));
    const mail = (await t.outbox()).find((m) => m.to === account.credentials.email && m.token);
    await t.http().post('/api/v1/auth/verify-email').send({ token: mail!.token }).expect(200);
    return account;
  };
  /** A fresh owner and its organization; `member` joined as a member when asked. */
  const team = async (withMember = false) => {
    const owner = await registerAndLogin(t, uniqueUser('orgowner'));
    const created = await by(owner, 'post', ORGS).send({ name: 'Conformance' }).expect(201);
    const id = created.body.data.organization.id as string;
    const member = withMember ? await verified() : undefined;
    if (member) {
      const { token } = await invite(owner, id, member.credentials.email);
      await by(member, 'post', '/api/v1/invitations/accept').send({ token }).expect(200);
    }
    return { owner, id, base: `${ORGS}/${id}`, member };
  };
  const invite = async (owner: LoggedIn, id: string, email: string) => {
    const response = await by(owner, 'post', `${ORGS}/${id}/invitations`)
      .send({ email, role: 'member', applicationUrl: `${APP_ORIGIN}/join` })
      .expect(201);
    const mail = (await t.outbox()).filter((m) => m.to === email).at(-1)!;
    const token = new URL(mail.link).searchParams.get('invitation')!;
    return { token, invitationId: response.body.data.invitation.id as string };
  };
  const stranger = () => registerAndLogin(t, uniqueUser('orgstranger'));
  /** 401 to nobody, 404 to a non-member, 415 for a text body (changes only). */
  const refusals = (method: Method, suffix: string): Case[] => [
    [401, () => by(undefined, method, `${NO_ORG}${suffix}`)],
    [404, async () => by(await stranger(), method, `${NO_ORG}${suffix}`).send({})],
    ...(method === 'get'
      ? []
      : [[415, async () => text(await stranger(), method, `${NO_ORG}${suffix}`)] as Case]),
  ];
  const aged = (access: string) =>
    signAccess({
      ...(jwt.decode(access) as object),
      jti: randomUUID(),
      auth_time: Math.floor(Date.now() / 1000) - 3600,
    });

  return {
    [`POST ${ORGS}`]: () => [
      [201, async () => by(await stranger(), 'post', ORGS).send({ name: 'Conformance' })],
      [
        409,
        async () => {
          const { owner } = await team();
          const slug = `taken-${randomUUID().slice(0, 8)}`;
          await by(owner, 'post', ORGS).send({ name: 'A', slug }).expect(201);
          return by(owner, 'post', ORGS).send({ name: 'B', slug });
        },
      ],
      [400, async () => by(await stranger(), 'post', ORGS).send({ name: '' })],
      [401, () => by(undefined, 'post', ORGS).send({ name: 'x' })],
      [415, async () => text(await stranger(), 'post', ORGS)],
    ],
    [`GET ${ORGS}`]: () => [
      [200, async () => by((await team()).owner, 'get', ORGS)],
      [401, () => by(undefined, 'get', ORGS)],
    ],
    [`GET ${ORGS}/{orgId}`]: () => [
      [
        200,
        async () => {
          const { owner, base } = await team();
          return by(owner, 'get', base);
        },
      ],
      ...refusals('get', ''),
    ],
    [`PATCH ${ORGS}/{orgId}`]: () => [
      [
        200,
        async () => {
          const { owner, base } = await team();
          return by(owner, 'patch', base).send({ name: 'Renamed' });
        },
      ],
      [
        409,
        async () => {
          const { owner, base } = await team();
          const other = await by(owner, 'post', ORGS).send({ name: 'Other' }).expect(201);
          return by(owner, 'patch', base).send({ slug: other.body.data.organization.slug });
        },
      ],
      [
        403,
        async () => {
          const { member, base } = await team(true);
          return by(member, 'patch', base).send({ name: 'Nope' });
        },
      ],
      [
        400,
        async () => {
          const { owner, base } = await team();
          return by(owner, 'patch', base).send({ slug: 'Not A Slug' });
        },
      ],
      ...refusals('patch', ''),
    ],
    [`DELETE ${ORGS}/{orgId}`]: () => [
      [
        200,
        async () => {
          const { owner, base } = await team();
          return by(owner, 'delete', base);
        },
      ],
      [
        403,
        async () => {
          const { owner, base } = await team();
          return by({ access: aged(owner.access) }, 'delete', base);
        },
      ],
      ...refusals('delete', ''),
    ],
    [`GET ${ORGS}/{orgId}/members`]: () => [
      [
        200,
        async () => {
          const { member, base } = await team(true);
          return by(member, 'get', `${base}/members`);
        },
      ],
      [
        400,
        async () => {
          const { member, base } = await team(true);
          return by(member, 'get', `${base}/members?limit=0`);
        },
      ],
      ...refusals('get', '/members'),
    ],
    [`PATCH ${ORGS}/{orgId}/members/{userId}`]: () => {
      const path = (base: string, who: LoggedIn) => `${base}/members/${who.user.id}`;
      return [
        [
          200,
          async () => {
            const { owner, member, base } = await team(true);
            return by(owner, 'patch', path(base, member!)).send({ role: 'admin' });
          },
        ],
        [
          409,
          async () => {
            const { owner, base } = await team();
            return by(owner, 'patch', path(base, owner)).send({ role: 'member' });
          },
        ],
        [
          400,
          async () => {
            const { owner, base } = await team();
            return by(owner, 'patch', path(base, owner)).send({ role: 'boss' });
          },
        ],
        ...refusals('patch', '/members/user_000000000000000000'),
      ];
    },
    [`DELETE ${ORGS}/{orgId}/members/{userId}`]: () => {
      const path = (base: string, who: LoggedIn) => `${base}/members/${who.user.id}`;
      return [
        [
          200,
          async () => {
            const { member, base } = await team(true);
            return by(member, 'delete', path(base, member!));
          },
        ],
        [
          409,
          async () => {
            const { owner, base } = await team();
            return by(owner, 'delete', path(base, owner));
          },
        ],
        ...refusals('delete', '/members/user_000000000000000000'),
      ];
    },
    [`POST ${ORGS}/{orgId}/invitations`]: () => [
      [
        201,
        async () => {
          const { owner, base } = await team();
          return by(owner, 'post', `${base}/invitations`).send({
            email: uniqueUser('invited').email,
            role: 'member',
          });
        },
      ],
      [
        409,
        async () => {
          const { owner, base } = await team();
          return by(owner, 'post', `${base}/invitations`).send({
            email: owner.credentials.email,
            role: 'admin',
          });
        },
      ],
      [
        400,
        async () => {
          const { owner, base } = await team();
          return by(owner, 'post', `${base}/invitations`).send({ email: 'nope', role: 'member' });
        },
      ],
      ...refusals('post', '/invitations'),
    ],
    [`GET ${ORGS}/{orgId}/invitations`]: () => [
      [
        200,
        async () => {
          const { owner, id, base } = await team();
          await invite(owner, id, uniqueUser('listed').email);
          return by(owner, 'get', `${base}/invitations`);
        },
      ],
      ...refusals('get', '/invitations'),
    ],
    [`DELETE ${ORGS}/{orgId}/invitations/{invitationId}`]: () => [
      [
        200,
        async () => {
          const { owner, id, base } = await team();
          const { invitationId } = await invite(owner, id, uniqueUser('withdrawn').email);
          return by(owner, 'delete', `${base}/invitations/${invitationId}`);
        },
      ],
      ...refusals('delete', '/invitations/inv_000000000000000000'),
    ],
    'POST /api/v1/invitations/accept': () => {
      const path = '/api/v1/invitations/accept';
      return [
        [
          200,
          async () => {
            const { owner, id } = await team();
            const invited = await verified();
            const { token } = await invite(owner, id, invited.credentials.email);
            return by(invited, 'post', path).send({ token });
          },
        ],
        [
          401,
          async () => {
            const { owner, id } = await team();
            const invited = await verified();
            const { token } = await invite(owner, id, invited.credentials.email);
            await by(invited, 'post', path).send({ token }).expect(200);
            return by(invited, 'post', path).send({ token });
          },
        ],
        [
          403,
          async () => {
            const { owner, id } = await team();
            const { token } = await invite(owner, id, uniqueUser('elsewhere').email);
            return by(await verified(), 'post', path).send({ token });
          },
        ],
        [
          409,
          async () => {
            // A member invited at another address, which becomes its verified email.
            const { owner, id, member } = await team(true);
            const address = uniqueUser('moved').email;
            const { token } = await invite(owner, id, address);
            await by(member, 'post', '/api/v1/users/me/email')
              .send({ password: member!.credentials.password, newEmail: address })
              .expect(200);
            const mail = (await t.outbox()).filter((m) => m.to === address && m.token).at(-1)!;
            await t
              .http()
              .post('/api/v1/users/me/email/confirm')
              .send({ token: mail.token })
              .expect(200);
            return by(member, 'post', path).send({ token });
          },
        ],
        [401, () => by(undefined, 'post', path).send({ token: 'x' })],
        [400, async () => by(await stranger(), 'post', path).send({})],
        [415, async () => text(await stranger(), 'post', path)],
      ];
    },
    'POST /api/v1/auth/organization': () => {
      const path = '/api/v1/auth/organization';
      return [
        [
          200,
          async () => {
            const { owner, id } = await team();
            return by(owner, 'post', path).send({ organization_id: id });
          },
        ],
        [
          200,
          async () => {
            const { owner, id } = await team();
            return by(owner, 'post', path)
              .set('X-Token-Delivery', 'body')
              .send({ organization_id: id });
          },
        ],
        [
          404,
          async () =>
            by(await stranger(), 'post', path).send({ organization_id: 'org_000000000000000000' }),
        ],
        [400, async () => by(await stranger(), 'post', path).send({})],
        [401, () => by(undefined, 'post', path).send({ organization_id: null })],
        [415, async () => text(await stranger(), 'post', path)],
      ];
    },
    'GET /api/v1/admin/organizations': () => [
      [200, () => by(admin(), 'get', '/api/v1/admin/organizations?search=conf&page=1&pageSize=5')],
      [400, () => by(admin(), 'get', '/api/v1/admin/organizations?pageSize=0')],
      [401, () => by(undefined, 'get', '/api/v1/admin/organizations')],
      [403, async () => by(await stranger(), 'get', '/api/v1/admin/organizations')],
    ],
    'GET /api/v1/admin/users/{id}/organizations': () => [
      [
        200,
        async () =>
          by(admin(), 'get', `/api/v1/admin/users/${(await team()).owner.user.id}/organizations`),
      ],
      [404, () => by(admin(), 'get', '/api/v1/admin/users/user_000000000000000000/organizations')],
      [
        401,
        () => by(undefined, 'get', '/api/v1/admin/users/user_000000000000000000/organizations'),
      ],
    ],
  };
}
