import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as jwt from 'jsonwebtoken';
import { createConnection } from 'mysql2/promise';
import { readOutbox } from './support/mailbox';
import { ProcessPair, startProcessPair } from './support/process-pair';
import { ServiceProcess } from './support/service-process';

const PASSWORD = 'orgs-instances-1';

/**
 * Organizations on two instances (two real processes on one MariaDB and one Redis, each with a
 * token-check cache that would serve a user for ten minutes): a member removed or demoted on one
 * instance is refused by the other's very next request, and the other's next refresh of the
 * member's session drops or updates its active organization.
 */
describe('organizations across two processes', () => {
  let pair: ProcessPair | undefined;
  let a: ServiceProcess;
  let b: ServiceProcess;
  const outbox = mkdtempSync(join(tmpdir(), 'orgs-outbox-'));

  beforeAll(async () => {
    pair = await startProcessPair({ USER_CACHE_TTL: '600', MAIL_OUTBOX_DIR: outbox });
    ({ a, b } = pair);
  }, 120_000);

  afterAll(async () => {
    await pair?.stop();
    rmSync(outbox, { recursive: true, force: true });
  });

  it('refuses a removed or demoted member on the other instance at once', async () => {
    const owner = await signIn(a, await register(a, 'owner'));
    const memberCredentials = await register(a, 'member');
    await markVerified(pair!, memberCredentials.email);
    const created = await call(a, 'POST', '/organizations', owner.access, { name: 'Two' });
    expect(created.status).toBe(201);
    const orgId = (created.body as { data: { organization: { id: string } } }).data.organization.id;
    const invited = await call(a, 'POST', `/organizations/${orgId}/invitations`, owner.access, {
      email: memberCredentials.email,
      role: 'admin',
    });
    expect(invited.status).toBe(201);
    const mail = (await readOutbox(outbox)).filter((m) => m.to === memberCredentials.email).at(-1)!;
    const token = new URL(mail.link).searchParams.get('invitation')!;

    // The member works on B: accepts, reads (warming B's caches), chooses the organization.
    let member = await signIn(b, memberCredentials);
    expect((await call(b, 'POST', '/invitations/accept', member.access, { token })).status).toBe(
      200,
    );
    for (let i = 0; i < 3; i++) {
      expect(
        (await call(b, 'GET', `/organizations/${orgId}/invitations`, member.access)).status,
      ).toBe(200);
    }
    const chosen = await call(
      b,
      'POST',
      '/auth/organization',
      member.access,
      { organization_id: orgId },
      { 'x-token-delivery': 'body' },
    );
    expect(chosen.status).toBe(200);
    member = {
      access: chosen.body.access_token as string,
      refresh: chosen.body.refresh_token as string,
    };
    expect(claims(member.access)).toMatchObject({ org_id: orgId, org_role: 'admin' });

    // Demoted on A: B refuses the admin route at the next request, and its refresh says so.
    const demoted = await call(
      a,
      'PATCH',
      `/organizations/${orgId}/members/${claims(member.access).sub as string}`,
      owner.access,
      { role: 'member' },
    );
    expect(demoted.status).toBe(200);
    expect(
      (await call(b, 'GET', `/organizations/${orgId}/invitations`, member.access)).status,
    ).toBe(403);
    member = await refresh(b, member.refresh);
    expect(claims(member.access)).toMatchObject({ org_id: orgId, org_role: 'member' });

    // Removed on A: B answers 404 at once, and its next refresh carries no organization.
    const removed = await call(
      a,
      'DELETE',
      `/organizations/${orgId}/members/${claims(member.access).sub as string}`,
      owner.access,
    );
    expect(removed.status).toBe(200);
    expect((await call(b, 'GET', `/organizations/${orgId}`, member.access)).status).toBe(404);
    member = await refresh(b, member.refresh);
    expect(claims(member.access).org_id).toBeUndefined();
  }, 120_000);
});

interface Credentials {
  email: string;
  username: string;
  password: string;
}

interface Tokens {
  access: string;
  refresh: string;
}

let accounts = 0;

const claims = (token: string) => jwt.decode(token) as Record<string, unknown>;

async function register(t: ServiceProcess, name: string): Promise<Credentials> {
  accounts += 1;
  const username = `oi${process.pid}${name}x${accounts}`;
  const credentials = { email: `${username}@example.com`, password: PASSWORD, username };
  const response = await call(t, 'POST', '/auth/register', undefined, credentials);
  if (response.status !== 201) throw new Error(`register: ${response.status}`);
  return credentials;
}

/** The address's proof, straight in the database: the mailed link is another suite's subject. */
async function markVerified(pair: ProcessPair, email: string): Promise<void> {
  const connection = await createConnection({ uri: pair.database.url });
  try {
    await connection.query(
      'UPDATE users SET email_verified = 1, verified_at = NOW(3) WHERE email_normalized = ?',
      [email],
    );
  } finally {
    await connection.end();
  }
}

async function signIn(t: ServiceProcess, credentials: Credentials): Promise<Tokens> {
  const response = await call(
    t,
    'POST',
    '/auth/login',
    undefined,
    {
      email: credentials.email,
      password: credentials.password,
    },
    { 'x-token-delivery': 'body' },
  );
  if (response.status !== 200) throw new Error(`login: ${response.status}`);
  const body = response.body as { access_token: string; refresh_token: string };
  return { access: body.access_token, refresh: body.refresh_token };
}

async function refresh(t: ServiceProcess, token: string): Promise<Tokens> {
  const response = await fetch(`${t.url}/auth/refresh`, {
    method: 'POST',
    headers: { cookie: `refresh_token=${token}`, 'x-token-delivery': 'body' },
  });
  if (response.status !== 200) throw new Error(`refresh: ${response.status}`);
  const body = (await response.json()) as { access_token: string; refresh_token: string };
  return { access: body.access_token, refresh: body.refresh_token };
}

async function call(
  t: ServiceProcess,
  method: string,
  path: string,
  access: string | undefined,
  body?: object,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${t.url}${path}`, {
    method,
    headers: {
      ...(access ? { authorization: `Bearer ${access}` } : {}),
      ...(body ? { 'content-type': 'application/json' } : {}),
      ...headers,
    },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}
