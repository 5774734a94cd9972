import { createConnection } from 'mysql2/promise';
import { ProcessPair, startProcessPair } from './support/process-pair';
import { ServiceProcess } from './support/service-process';
import { TestDatabase } from './support/test-database';

const TRIALS = 24;
const PASSWORD = 'admin-multi-1';

type Action = 'disable' | 'delete' | 'sessions/end';

/**
 * Two instances as two real processes on one MariaDB and one Redis, each with a token-check cache
 * that would serve a user for ten minutes: an administrator's change on one instance must be
 * refused by the other's very next check. (Two apps in one Jest process would share passport's
 * strategies, so they would not be two instances.)
 */
describe('admin changes across two processes', () => {
  let pair: ProcessPair | undefined;
  let a: ServiceProcess | undefined;
  let b: ServiceProcess | undefined;

  beforeAll(async () => {
    pair = await startProcessPair({ USER_CACHE_TTL: '600' });
    ({ a, b } = pair);
  }, 120_000);

  afterAll(async () => {
    await pair?.stop();
  });

  it(`refuses a disabled, deleted or ended user's live token on the other instance at the next call (${TRIALS} trials)`, async () => {
    const admin = await register(a!, 'admin');
    await makeAdmin(pair!.database, admin.email);
    const adminToken = (await login(a!, admin)).access;

    const failures: string[] = [];
    for (let trial = 0; trial < TRIALS; trial++) {
      // Both directions; most trials disable, as the issue names.
      const [acting, checking] = trial % 2 === 0 ? [a!, b!] : [b!, a!];
      const action: Action =
        trial % 6 === 5 ? 'delete' : trial % 6 === 4 ? 'sessions/end' : 'disable';
      const user = await register(acting, `t${trial}`);
      const session = await login(checking, user);
      // Warm: the checking instance has the user cached, under the current generation.
      for (let i = 0; i < 3; i++) {
        if ((await verify(checking, session.access)) !== 200) failures.push(`${trial}: not warm`);
      }
      const adminPath = `/admin/users/${session.id}${action === 'delete' ? '' : `/${action}`}`;
      const done = await call(
        acting,
        action === 'delete' ? 'DELETE' : 'POST',
        adminPath,
        adminToken,
      );
      if (done.status !== 200) failures.push(`${trial}: ${action} answered ${done.status}`);

      const after = await verify(checking, session.access);
      if (after !== 401) failures.push(`${trial}: ${action} on one, token ${after} on the other`);
      const refreshed = await refresh(checking, session.refresh);
      if (refreshed !== 401) failures.push(`${trial}: refresh ${refreshed} after ${action}`);
      if (action === 'disable') {
        const again = await post(checking, '/auth/login', {
          email: user.email,
          password: PASSWORD,
        });
        const body = (await again.json()) as { error?: string };
        if (again.status !== 403 || body.error !== 'ACCOUNT_DISABLED') {
          failures.push(`${trial}: login after disable ${again.status} ${body.error}`);
        }
      }
    }
    expect(failures).toEqual([]);
  }, 120_000);

  it('applies a role change at once on the other instance (the admin routes open and close)', async () => {
    const admin = await register(a!, 'admin2');
    await makeAdmin(pair!.database, admin.email);
    const adminToken = (await login(a!, admin)).access;
    const user = await register(a!, 'promoted');
    const session = await login(b!, user);
    expect((await call(b!, 'GET', '/admin/users', session.access)).status).toBe(403);
    await call(a!, 'PATCH', `/admin/users/${session.id}/role`, adminToken, { role: 'admin' });
    expect((await call(b!, 'GET', '/admin/users', session.access)).status).toBe(200);
    await call(a!, 'PATCH', `/admin/users/${session.id}/role`, adminToken, { role: 'user' });
    expect((await call(b!, 'GET', '/admin/users', session.access)).status).toBe(403);
  }, 60_000);
});

interface Credentials {
  email: string;
  username: string;
  password: string;
}

let accounts = 0;

async function register(t: ServiceProcess, name: string): Promise<Credentials> {
  accounts += 1;
  const username = `am${process.pid}${name}x${accounts}`;
  const credentials = { email: `${username}@example.com`, password: PASSWORD, username };
  const response = await post(t, '/auth/register', credentials);
  await response.arrayBuffer();
  if (response.status !== 201) throw new Error(`register: ${response.status}`);
  return credentials;
}

/** The operator's way in, straight in the database, before the account first logs in. */
async function makeAdmin(database: TestDatabase, email: string): Promise<void> {
  const connection = await createConnection({ uri: database.url });
  try {
    await connection.query("UPDATE users SET role = 'admin' WHERE email_normalized = ?", [email]);
  } finally {
    await connection.end();
  }
}

async function login(t: ServiceProcess, credentials: Credentials) {
  const response = await post(t, '/auth/login', {
    email: credentials.email,
    password: credentials.password,
  });
  if (response.status !== 200) throw new Error(`login: ${response.status}`);
  const body = (await response.json()) as { data: { user: { id: string } } };
  const cookie = (name: string) => {
    const found = response.headers.getSetCookie().find((c) => c.startsWith(`${name}=`));
    if (!found) throw new Error(`login: no ${name} cookie`);
    return found.slice(name.length + 1, found.indexOf(';'));
  };
  return {
    id: body.data.user.id,
    access: cookie('access_token'),
    refresh: cookie('refresh_token'),
  };
}

async function verify(t: ServiceProcess, access: string): Promise<number> {
  return (await call(t, 'GET', '/auth/verify-token', access)).status;
}

async function refresh(t: ServiceProcess, token: string): Promise<number> {
  const response = await fetch(`${t.url}/auth/refresh`, {
    method: 'POST',
    headers: { cookie: `refresh_token=${token}` },
  });
  await response.arrayBuffer();
  return response.status;
}

async function call(
  t: ServiceProcess,
  method: string,
  path: string,
  access: string,
  body?: object,
): Promise<{ status: number }> {
  const response = await fetch(`${t.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${access}`,
      ...(body ? { 'content-type': 'application/json' } : {}),
    },
    body: body ? JSON.stringify(body) : undefined,
  });
  await response.arrayBuffer();
  return { status: response.status };
}

async function post(t: ServiceProcess, path: string, body: object): Promise<Response> {
  return fetch(`${t.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}
