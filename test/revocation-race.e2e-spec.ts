import { ProcessPair, startProcessPair } from './support/process-pair';
import { ServiceProcess } from './support/service-process';

const TRIALS = 1150;
/** Trials run side by side, each worker with an account of its own. */
const WORKERS = 8;
/** verify-token requests per second spread over both instances while the trials run. */
const BACKGROUND_RATE = 200;
const BACKGROUND_MAX_IN_FLIGHT = 20;

/**
 * Two instances as two processes on one MariaDB and one Redis, as they are deployed. A logout on
 * one must be refused by the other's very next check, however warm its cache: the window a
 * pub/sub notice left (the notice arriving after the logout had answered) must be gone.
 */
describe('revocation across two processes under load', () => {
  let pair: ProcessPair | undefined;
  let a: ServiceProcess | undefined;
  let b: ServiceProcess | undefined;

  beforeAll(async () => {
    pair = await startProcessPair({});
    ({ a, b } = pair);
  }, 120_000);

  afterAll(async () => {
    await pair?.stop();
  });

  it(`never accepts a token on one instance once its logout on the other has answered (${TRIALS} trials)`, async () => {
    const [first, second] = [a!, b!];
    const background = startBackgroundLoad(
      [first, second],
      await Promise.all([account(first, 'bg1'), account(second, 'bg2')]),
    );

    const outcomes = { trials: 0, stale: 0, warmFailures: 0 };
    const refusedLogouts: string[] = [];
    const started = Date.now();
    await Promise.all(
      Array.from({ length: WORKERS }, async (_, worker) => {
        const credentials = await register(first, `w${worker}`);
        for (let trial = worker; trial < TRIALS; trial += WORKERS) {
          // Both directions: half the trials log out on A and check on B.
          const [checker, other] = trial % 2 === 0 ? [first, second] : [second, first];
          const access = await login(other, credentials);
          if ((await verify(checker, access)) !== 200) outcomes.warmFailures += 1;
          const loggedOut = await logout(other, access);
          // A logout the database could not take (503 under contention) revoked nothing: the
          // trial does not count, and the refusals are printed.
          if (loggedOut !== 'ok') {
            refusedLogouts.push(loggedOut);
            continue;
          }
          if ((await verify(checker, access)) !== 401) outcomes.stale += 1;
          outcomes.trials += 1;
        }
      }),
    );
    const load = await background.stop();

    console.log(
      `revocation race: ${outcomes.trials} trials in ${Date.now() - started} ms, ` +
        `${outcomes.stale} stale acceptances, ${refusedLogouts.length} logouts refused ` +
        `${JSON.stringify([...new Set(refusedLogouts)])}; background ${load.sent} verify-token requests ` +
        `(${load.rate.toFixed(0)}/s), ${load.failed} not 200`,
    );
    expect(outcomes.stale).toBe(0);
    expect(outcomes.warmFailures).toBe(0);
    expect(outcomes.trials).toBeGreaterThan(1000);
    expect(refusedLogouts.length).toBeLessThan(TRIALS / 100);
    expect(load.failed).toBe(0);
    expect(load.rate).toBeGreaterThan(BACKGROUND_RATE / 2);
  }, 120_000);
});

interface Credentials {
  email: string;
  password: string;
  username: string;
}

let accounts = 0;

async function register(t: ServiceProcess, name: string): Promise<Credentials> {
  accounts += 1;
  const username = `race${process.pid}${name}x${accounts}`;
  const credentials = { email: `${username}@example.com`, password: 'race-pass-1', username };
  const response = await post(t, '/auth/register', credentials);
  if (response.status !== 201) throw new Error(`register: ${response.status}`);
  return credentials;
}

async function account(t: ServiceProcess, name: string): Promise<string> {
  return login(t, await register(t, name));
}

async function login(t: ServiceProcess, credentials: Credentials): Promise<string> {
  const response = await post(t, '/auth/login', {
    email: credentials.email,
    password: credentials.password,
  });
  if (response.status !== 200) throw new Error(`login: ${response.status}`);
  const cookie = response.headers.getSetCookie().find((c) => c.startsWith('access_token='));
  if (!cookie) throw new Error('login: no access_token cookie');
  return cookie.slice('access_token='.length, cookie.indexOf(';'));
}

async function verify(t: ServiceProcess, access: string): Promise<number> {
  const response = await fetch(`${t.url}/auth/verify-token`, {
    headers: { authorization: `Bearer ${access}` },
  });
  await response.arrayBuffer();
  return response.status;
}

/** 'ok', or the status and error code of the refusal. */
async function logout(t: ServiceProcess, access: string): Promise<string> {
  const response = await fetch(`${t.url}/auth/logout`, {
    method: 'POST',
    headers: { authorization: `Bearer ${access}` },
  });
  const body = (await response.json()) as { error?: string; message?: string };
  return response.status === 200 ? 'ok' : `${response.status} ${body.error}: ${body.message}`;
}

async function post(t: ServiceProcess, path: string, body: object): Promise<Response> {
  const response = await fetch(`${t.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  await response.arrayBuffer();
  return response;
}

/** verify-token at a steady rate, alternating instances, never more than a bounded number at once. */
function startBackgroundLoad(instances: ServiceProcess[], tokens: string[]) {
  const started = Date.now();
  let sent = 0;
  let failed = 0;
  let inFlight = 0;
  const running = new Set<Promise<void>>();
  const timer = setInterval(() => {
    const due = Math.floor(((Date.now() - started) * BACKGROUND_RATE) / 1000);
    while (sent < due && inFlight < BACKGROUND_MAX_IN_FLIGHT) {
      const n = sent++;
      inFlight += 1;
      const request = verify(instances[n % instances.length], tokens[n % tokens.length])
        .then((status) => {
          if (status !== 200) failed += 1;
        })
        .catch(() => {
          failed += 1;
        })
        .finally(() => {
          inFlight -= 1;
          running.delete(request);
        });
      running.add(request);
    }
  }, 5);
  return {
    stop: async () => {
      clearInterval(timer);
      await Promise.all(running);
      return { sent, failed, rate: (sent * 1000) / (Date.now() - started) };
    },
  };
}
