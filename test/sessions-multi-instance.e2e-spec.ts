import { ProcessPair, startProcessPair } from './support/process-pair';
import { ServiceProcess } from './support/service-process';

const TRIALS = 40;
const WORKERS = 4;

/**
 * Issue 17: a session ended from the list on one instance is refused at once by another, while
 * the user's other sessions go on there. Two real processes (passport's strategies are
 * process-wide, so two apps in one process would share one) on one MariaDB and one Redis
 * prefix, each with an hour-long user cache kept warm on the checking side, so a stale copy
 * would be served if the ending did not reach it.
 */
describe('ending a session across two processes', () => {
  let pair: ProcessPair | undefined;
  let a: ServiceProcess | undefined;
  let b: ServiceProcess | undefined;

  beforeAll(async () => {
    pair = await startProcessPair({ USER_CACHE_TTL: '3600' });
    ({ a, b } = pair);
  }, 120_000);

  afterAll(async () => {
    await pair?.stop();
  });

  it(`refuses a session ended from the list on the other instance at once, and only that one (${TRIALS} trials)`, async () => {
    const outcomes = { trials: 0, stale: [] as string[], wronglyRefused: [] as string[] };
    await Promise.all(
      Array.from({ length: WORKERS }, async (_, worker) => {
        for (let trial = worker; trial < TRIALS; trial += WORKERS) {
          // Both directions: half the trials end the session on A and check on B.
          const [ender, checker] = trial % 2 === 0 ? [a!, b!] : [b!, a!];
          const credentials = await register(ender, `s${worker}x${trial}`);
          const kept = await login(ender, credentials, 'Kept/1.0');
          const ended = await login(checker, credentials, 'Ended/1.0');
          // Warm on the checking instance: both sessions in its cache.
          for (const session of [kept, ended]) {
            if ((await verify(checker, session.access)) !== 200) {
              throw new Error(`trial ${trial}: a live session was refused before the test`);
            }
          }
          const listed = await listSessions(ender, kept.access);
          const target = listed.find((session) => session.user_agent === 'Ended/1.0');
          if (!target || listed.length !== 2)
            throw new Error(`trial ${trial}: listed ${JSON.stringify(listed)}`);

          const status = await endSession(ender, kept.access, target.id);
          if (status !== 200) throw new Error(`trial ${trial}: DELETE answered ${status}`);

          if ((await verify(checker, ended.access)) !== 401) outcomes.stale.push(`${trial}`);
          if ((await verify(checker, kept.access)) !== 200) {
            outcomes.wronglyRefused.push(`${trial}`);
          }
          if ((await refresh(checker, ended.refresh)) !== 401) {
            outcomes.stale.push(`${trial} (refresh)`);
          }
          outcomes.trials += 1;
        }
      }),
    );
    expect(outcomes).toEqual({ trials: TRIALS, stale: [], wronglyRefused: [] });
  }, 120_000);

  it('ends the other sessions from one instance and logs out of one session from the other', async () => {
    const credentials = await register(a!, 'others');
    const mine = await login(a!, credentials, 'Mine/1.0');
    const others = [
      await login(b!, credentials, 'Other/1.0'),
      await login(a!, credentials, 'Other/2.0'),
    ];
    for (const session of [mine, ...others]) expect(await verify(b!, session.access)).toBe(200);

    const response = await fetch(`${a!.url}/users/me/sessions/end-others`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${mine.access}` },
    });
    expect(response.status).toBe(200);
    for (const session of others) expect(await verify(b!, session.access)).toBe(401);
    expect(await verify(b!, mine.access)).toBe(200);

    // logout with scope current on B: refused at once on A, where it is warm.
    const second = await login(b!, credentials, 'Second/1.0');
    expect(await verify(a!, second.access)).toBe(200);
    expect(await verify(a!, mine.access)).toBe(200);
    const logout = await fetch(`${b!.url}/auth/logout`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${mine.access}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ scope: 'current' }),
    });
    expect(logout.status).toBe(200);
    expect(await verify(a!, mine.access)).toBe(401);
    expect(await verify(a!, second.access)).toBe(200);
  });
});

interface Credentials {
  email: string;
  password: string;
  username: string;
}

interface Session {
  access: string;
  refresh: string;
}

async function register(t: ServiceProcess, name: string): Promise<Credentials> {
  const username = `ses${process.pid}${name}`;
  const credentials = { email: `${username}@example.com`, password: 'sessions-pass-1', username };
  const response = await fetch(`${t.url}/auth/register`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(credentials),
  });
  if (response.status !== 201) throw new Error(`register: ${response.status}`);
  return credentials;
}

async function login(t: ServiceProcess, credentials: Credentials, agent: string): Promise<Session> {
  const response = await fetch(`${t.url}/auth/login`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      'X-Token-Delivery': 'body',
      'User-Agent': agent,
    },
    body: JSON.stringify({ email: credentials.email, password: credentials.password }),
  });
  if (response.status !== 200) throw new Error(`login: ${response.status}`);
  const body = (await response.json()) as { access_token: string; refresh_token: string };
  return { access: body.access_token, refresh: body.refresh_token };
}

async function verify(t: ServiceProcess, access: string): Promise<number> {
  const response = await fetch(`${t.url}/auth/verify-token`, {
    headers: { Authorization: `Bearer ${access}` },
  });
  await response.arrayBuffer();
  return response.status;
}

async function refresh(t: ServiceProcess, token: string): Promise<number> {
  const response = await fetch(`${t.url}/auth/refresh`, {
    method: 'POST',
    headers: { Cookie: `refresh_token=${token}`, 'X-Token-Delivery': 'body' },
  });
  await response.arrayBuffer();
  return response.status;
}

async function listSessions(
  t: ServiceProcess,
  access: string,
): Promise<Array<{ id: string; user_agent: string | null }>> {
  const response = await fetch(`${t.url}/users/me/sessions`, {
    headers: { Authorization: `Bearer ${access}` },
  });
  if (response.status !== 200) throw new Error(`list: ${response.status}`);
  return ((await response.json()) as { data: { sessions: [] } }).data.sessions;
}

async function endSession(t: ServiceProcess, access: string, id: string): Promise<number> {
  const response = await fetch(`${t.url}/users/me/sessions/${id}`, {
    method: 'DELETE',
    headers: { Authorization: `Bearer ${access}` },
  });
  await response.arrayBuffer();
  return response.status;
}
