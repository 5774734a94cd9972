'use strict';
// npm run bench:sync: the embedded store with DATABASE_SYNC=normal (the default) beside
// DATABASE_SYNC=full, on files in the same folder of the same disk, measured in turns so both
// meet the same machine. Registrations, logins and refreshes per second, each a ratio of full to
// normal. BENCH_DURATION (seconds per run, default 5), BENCH_RUNS (rounds, default 3: the
// median is kept), BCRYPT_COST (default 10, the service's; a low one shows the write's own cost).
// See docs/performance.md.
const { execSync } = require('node:child_process');
const { randomBytes } = require('node:crypto');
const { cpus } = require('node:os');
const { followRefreshChain, jsonPost, postEach, runAutocannon } = require('./load');
const { ROOT, startBuiltService } = require('./service');

const DURATION = Number(process.env.BENCH_DURATION || 5);
const RUNS = Number(process.env.BENCH_RUNS || 3);
const COST = Number(process.env.BCRYPT_COST || 10);
const HASH_CONNECTIONS = 16;
const REFRESH_CONNECTIONS = 20;
const PASSWORD = 'bench-password-1';
const MODES = ['normal', 'full'];

/** New users' bodies, each its own email and username. */
function registrations() {
  const tag = randomBytes(3).toString('hex');
  let next = 0;
  return () => {
    const id = `${tag}${(next++).toString(36)}`;
    return { email: `sync-${id}@example.com`, username: `sync_${id}`, password: PASSWORD };
  };
}

async function start(mode) {
  const service = await startBuiltService({
    name: `sync-${mode}`,
    env: (dataDir) => ({
      DATABASE_URL: `sqlite:${dataDir}/auth.sqlite`,
      DATABASE_SYNC: mode,
      BCRYPT_COST: String(COST),
    }),
  });
  // Users to log in as; the registrations during the runs add more.
  const next = registrations();
  const users = [];
  for (let i = 0; i < HASH_CONNECTIONS * 4; i++) {
    const body = next();
    await jsonPost(`${service.url}/api/v1/auth/register`, body);
    users.push(body.email);
  }
  return { ...service, mode, users, register: registrations() };
}

function registerRun(service) {
  return postEach({
    url: `${service.url}/api/v1/auth/register`,
    connections: HASH_CONNECTIONS,
    duration: DURATION,
    nextBody: service.register,
  });
}

function loginRun(service) {
  let next = 0;
  return postEach({
    url: `${service.url}/api/v1/auth/login`,
    connections: HASH_CONNECTIONS,
    duration: DURATION,
    headers: { 'x-token-delivery': 'body' },
    nextBody: () => ({ email: service.users[next++ % service.users.length], password: PASSWORD }),
  });
}

async function refreshRun(service) {
  const logins = await Promise.all(
    service.users
      .slice(0, REFRESH_CONNECTIONS)
      .map((email) =>
        jsonPost(
          `${service.url}/api/v1/auth/login`,
          { email, password: PASSWORD },
          { 'x-token-delivery': 'body' },
        ),
      ),
  );
  const tokens = logins.map((body) => body.refresh_token);
  return runAutocannon({
    url: `${service.url}/api/v1/auth/refresh`,
    method: 'POST',
    connections: REFRESH_CONNECTIONS,
    duration: DURATION,
    setupClient: followRefreshChain(() => tokens.pop()),
  });
}

const LOADS = [
  ['register', `register/s (${HASH_CONNECTIONS} connections, cost ${COST})`, registerRun],
  ['login', `login/s (${HASH_CONNECTIONS} connections, cost ${COST})`, loginRun],
  ['refresh', `refresh/s (${REFRESH_CONNECTIONS} connections)`, refreshRun],
];

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function main() {
  console.log(
    `DATABASE_SYNC normal beside full: ${RUNS} round(s) of ${LOADS.length} loads of ` +
      `${DURATION} s on each (about ${Math.ceil((RUNS * LOADS.length * 2 * (DURATION + 1)) / 60) + 1} min, build included).`,
  );
  execSync('npm run -s build', { cwd: ROOT, stdio: 'inherit' });
  const services = [];
  try {
    for (const mode of MODES) services.push(await start(mode));
    const figures = Object.fromEntries(
      LOADS.map(([key]) => [key, Object.fromEntries(MODES.map((m) => [m, []]))]),
    );
    for (let round = 0; round < RUNS; round++) {
      // Each round in the other order, so neither always runs on a warmer machine.
      const order = round % 2 === 0 ? services : [...services].reverse();
      for (const [key, , run] of LOADS) {
        for (const service of order) {
          const result = await run(service);
          if (result.failures > 0) throw new Error(`${key} on ${service.mode}: failures`);
          figures[key][service.mode].push(result.rps);
        }
      }
    }
    console.log(`\n${cpus().length} × ${cpus()[0].model}, Node ${process.version}\n`);
    console.log('| load | normal | full | full ÷ normal |');
    console.log('|---|---:|---:|---:|');
    for (const [key, label] of LOADS) {
      const normal = median(figures[key].normal);
      const full = median(figures[key].full);
      console.log(
        `| ${label} | ${normal.toFixed(1)} | ${full.toFixed(1)} | ${((full / normal) * 100).toFixed(1)} % |`,
      );
    }
  } finally {
    await Promise.all(services.map((service) => service.stop()));
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
