'use strict';
// npm run soak: a mixed load on loopback for a few minutes against the built service, checking
// that nothing answers 5xx, nothing is logged at error level, and memory levels off.
// SOAK_DURATION (seconds, default 180), SOAK_DATABASE_URL (default: an embedded SQLite file; a
// mysql:// URL names the server, where a throwaway database is created and dropped after),
// SOAK_REDIS_URL (optional), SOAK_INSTANCES (1, or 2 behind HAProxy: needs MariaDB and Redis),
// SOAK_HAPROXY (the haproxy binary). Writes its figures to docs/soak.md. See docs/several-instances.md.
const { execFileSync, execSync, spawn } = require('node:child_process');
const { randomBytes } = require('node:crypto');
const { existsSync, readFileSync, writeFileSync } = require('node:fs');
const { availableParallelism, cpus, loadavg } = require('node:os');
const { delimiter, join } = require('node:path');
const autocannon = require('autocannon');
const { followRefreshChain, jsonPost, waitForHealth } = require('../bench/load');
const { NODE_FLAGS, ROOT, freePort, startBuiltService } = require('../bench/service');

const DURATION = Number(process.env.SOAK_DURATION || 180);
const INSTANCES = Number(process.env.SOAK_INSTANCES || 1);
const DATABASE_URL = process.env.SOAK_DATABASE_URL;
const REDIS_URL = process.env.SOAK_REDIS_URL;
/** The documented configuration itself, so what the soak runs is what operators are shown. */
const HAPROXY_CONFIG = join(ROOT, 'examples', 'haproxy', 'haproxy.cfg');
const PASSWORD = 'soak-password-1';
/** Requests per second of each part of the mix (steady rates, not saturation). */
const MIX = { verify: 400, refresh: 100, login: 6, churn: 4, register: 2, badInput: 20 };
/**
 * The answers each part may get, in MIX's order: one login in four has a wrong password, and a
 * logout can find its token already revoked by the other connection's logout of the same user.
 * Anything else (a 401 on a token check: an instance refusing another's token) fails the run.
 */
const EXPECTED = [[200], [200], [200, 401], [200, 401], [201], [400]];
/** One set of signing secrets for every instance: a token from one is checked by another. */
const SECRETS = {
  JWT_ACCESS_SECRET: randomBytes(32).toString('hex'),
  JWT_REFRESH_SECRET: randomBytes(32).toString('hex'),
};

/** What was started, stopped in reverse order however the run ends (error, Ctrl-C). */
const cleanups = [];
async function cleanUp() {
  while (cleanups.length > 0) {
    const step = cleanups.pop();
    await step().catch((error) => console.error(`Cleaning up: ${error.message}`));
  }
}
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    console.error(`\n${signal}: stopping what the soak started`);
    cleanUp().finally(() => process.exit(1));
  });
}

async function main() {
  checkSetup();
  const haproxyBin = INSTANCES > 1 ? findHaproxy() : undefined;
  console.log('Building…');
  execSync('npm run -s build', { cwd: ROOT, stdio: 'inherit' });
  const databaseUrl = DATABASE_URL ? await throwawayDatabase(DATABASE_URL) : undefined;
  const redisKeyPrefix = REDIS_URL ? await throwawayRedisPrefix(REDIS_URL) : undefined;
  // Known before the instances start: its URL is theirs (PUBLIC_URL, the tokens' issuer), so a
  // token one of them issued is accepted by the other.
  const proxyPort = INSTANCES > 1 ? await freePort() : undefined;
  const publicUrl = proxyPort ? `http://127.0.0.1:${proxyPort}` : undefined;
  const instances = [];
  // One after the other: the first runs the migrations, the others find them done.
  for (let i = 1; i <= INSTANCES; i++) {
    instances.push(
      await startService(`soak${INSTANCES > 1 ? i : ''}`, databaseUrl, redisKeyPrefix, publicUrl),
    );
  }
  const proxy = INSTANCES > 1 ? await startHaproxy(haproxyBin, instances, proxyPort) : undefined;
  const url = proxy ? proxy.url : instances[0].url;

  const users = [];
  for (let i = 0; i < 4; i++) users.push(await newUser(url, `soak${i}`));
  const memory = instances.map((instance) => ({ start: instance.rssMb(), samples: [] }));
  // The machine's load, a condition of the figures: anything else running skews them.
  const load = [loadavg()[0]];
  const sampler = setInterval(() => {
    instances.forEach((instance, i) => memory[i].samples.push(instance.rssMb()));
    load.push(loadavg()[0]);
  }, 2000);
  console.log(
    `Mixed load for ${DURATION} s${proxy ? ` through HAProxy to ${INSTANCES} instances` : ''}…`,
  );
  const results = await Promise.all([
    verifyLoad(url, users[0]),
    refreshLoad(url, users[1]),
    loginLoad(url, users[2]),
    churnLoad(url, users[3]),
    registerLoad(url),
    badInputLoad(url),
  ]);
  clearInterval(sampler);
  instances.forEach((instance, i) => {
    memory[i].samples.push(instance.rssMb());
    memory[i].end = instance.rssMb();
    memory[i].peak = instance.peakRssMb();
  });
  // Stopped before the report: the instances' last log lines are written as they exit.
  await cleanUp();
  const report = summarize(results, instances, memory, proxy, load);
  console.log(`\n${report.text}\n`);
  writeDoc(report.text);
  if (!report.passed) process.exitCode = 1;
}

/** A run asked for something it cannot do: said in one line, no stack. */
class SetupError extends Error {}

function checkSetup() {
  if (![1, 2].includes(INSTANCES)) throw new SetupError('SOAK_INSTANCES is 1 or 2');
  if (DATABASE_URL && !DATABASE_URL.startsWith('mysql://'))
    throw new SetupError('SOAK_DATABASE_URL is a mysql:// URL (unset: an embedded SQLite file)');
  if (INSTANCES > 1 && !(DATABASE_URL && REDIS_URL))
    throw new SetupError(
      'SOAK_INSTANCES=2 needs SOAK_DATABASE_URL (MariaDB) and SOAK_REDIS_URL: instances share both',
    );
}

/** `SOAK_HAPROXY`, or `haproxy` on the PATH or in /usr/sbin (Debian's, outside a user's PATH). */
function findHaproxy() {
  const candidates = process.env.SOAK_HAPROXY
    ? [process.env.SOAK_HAPROXY]
    : [...(process.env.PATH || '').split(delimiter), '/usr/sbin'].map((dir) =>
        join(dir, 'haproxy'),
      );
  const found = candidates.find((file) => existsSync(file));
  if (!found)
    throw new SetupError(
      'SOAK_INSTANCES=2 runs HAProxy in front: install it (apt-get install haproxy) or set SOAK_HAPROXY',
    );
  return found;
}

/** A database of the run's own on the server the URL names, so no one's data is touched. */
async function throwawayDatabase(serverUrl) {
  const { createConnection } = require('mysql2/promise');
  const name = `auth_soak_${randomBytes(4).toString('hex')}`;
  const server = new URL(serverUrl);
  server.pathname = '/';
  const admin = await createConnection({ uri: server.toString(), connectTimeout: 5000 });
  try {
    await admin.query(
      `CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`,
    );
  } finally {
    await admin.end();
  }
  cleanups.push(async () => {
    const connection = await createConnection({ uri: server.toString(), connectTimeout: 5000 });
    try {
      await connection.query(`DROP DATABASE IF EXISTS \`${name}\``);
    } finally {
      await connection.end();
    }
  });
  const url = new URL(server.toString());
  url.pathname = `/${name}`;
  return url.toString();
}

/** Keys of the run's own, shared by its instances and deleted after: a shared Redis keeps everyone else's data untouched. */
async function throwawayRedisPrefix(redisUrl) {
  const prefix = `auth-soak-${randomBytes(4).toString('hex')}:`;
  cleanups.push(async () => {
    const Redis = require('ioredis');
    const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
    try {
      await redis.connect();
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
        if (keys.length > 0) await redis.del(...keys);
        cursor = next;
      } while (cursor !== '0');
    } finally {
      redis.disconnect();
    }
  });
  return prefix;
}

/** HAProxy on the committed configuration, its addresses given through the environment. */
async function startHaproxy(bin, instances, port) {
  const version = execFileSync(bin, ['-v'], { encoding: 'utf8' }).split('\n')[0];
  const child = spawn(bin, ['-f', HAPROXY_CONFIG], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      PATH: process.env.PATH,
      AUTH_LISTEN: `127.0.0.1:${port}`,
      ...Object.fromEntries(
        instances.map((instance, i) => [`AUTH_INSTANCE_${i + 1}`, new URL(instance.url).host]),
      ),
    },
  });
  const log = [];
  const keep = (chunk) => log.push(...chunk.toString().split('\n').filter(Boolean));
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  cleanups.push(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  });
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitForHealth(`${url}/api/v1/health/ready`, child);
  } catch (error) {
    throw new Error(`HAProxy did not come up: ${error.message}\n${log.join('\n')}`);
  }
  return {
    url,
    version,
    /** Instances it took out of service during the run (a failed readiness check, a refused connection). */
    downLines: () => [
      ...new Set(
        log
          .filter((line) => /\bis DOWN\b/.test(line))
          // The same event arrives as a warning on stderr and as a log line on stdout.
          .map((line) => line.replace(/^\[\w+\]\s+\(\d+\)\s+:\s+/, '')),
      ),
    ],
  };
}

async function newUser(url, name) {
  const email = `${name}-${randomBytes(3).toString('hex')}@example.com`;
  await jsonPost(`${url}/api/v1/auth/register`, {
    email,
    password: PASSWORD,
    username: `${name}${randomBytes(3).toString('hex')}`,
  });
  const tokens = await jsonPost(
    `${url}/api/v1/auth/login`,
    { email, password: PASSWORD },
    { 'x-token-delivery': 'body' },
  );
  return { email, access: tokens.access_token, refresh: tokens.refresh_token };
}

function load(name, options) {
  return new Promise((resolve, reject) => {
    autocannon({ duration: DURATION, timeout: 30, ...options }, (error, result) => {
      if (error) return reject(error);
      const statuses = {};
      for (const [code, { count }] of Object.entries(result.statusCodeStats || {})) {
        statuses[code] = count;
      }
      resolve({
        name,
        statuses,
        rps: result.requests.total / (result.duration || DURATION),
        errors: result.errors,
        timeouts: result.timeouts,
        p50: result.latency.p50,
        p99: result.latency.p99,
      });
    });
  });
}

function verifyLoad(url, user) {
  return load('verify-token', {
    url: `${url}/api/v1/auth/verify-token`,
    connections: 10,
    overallRate: MIX.verify,
    headers: { authorization: `Bearer ${user.access}` },
  });
}

/** Each connection follows its own rotation chain, as browsers do. */
function refreshLoad(url, user) {
  let seed = user.refresh;
  return load('refresh', {
    url: `${url}/api/v1/auth/refresh`,
    method: 'POST',
    connections: 1,
    overallRate: MIX.refresh,
    // One connection: when autocannon reconnects it, the chain goes on from the newest token.
    setupClient: followRefreshChain(
      () => seed,
      (token) => {
        seed = token;
      },
    ),
  });
}

/** Logins, one in four with a wrong password. */
function loginLoad(url, user) {
  let n = 0;
  return load('login', {
    url: `${url}/api/v1/auth/login`,
    method: 'POST',
    connections: 4,
    overallRate: MIX.login,
    headers: { 'content-type': 'application/json', 'x-token-delivery': 'body' },
    requests: [
      {
        setupRequest: (request) => ({
          ...request,
          body: JSON.stringify({
            email: user.email,
            password: ++n % 4 === 0 ? 'wrong-password' : PASSWORD,
          }),
        }),
      },
    ],
  });
}

/** Log in, then log out with that token: sessions and revocations come and go. */
function churnLoad(url, user) {
  return load('login → logout', {
    url,
    connections: 2,
    overallRate: MIX.churn,
    requests: [
      {
        method: 'POST',
        path: '/api/v1/auth/login',
        headers: { 'content-type': 'application/json', 'x-token-delivery': 'body' },
        body: JSON.stringify({ email: user.email, password: PASSWORD }),
        onResponse: (status, body, context) => {
          if (status === 200) context.access = JSON.parse(body).access_token;
        },
      },
      {
        method: 'POST',
        path: '/api/v1/auth/logout',
        setupRequest: (request, context) => ({
          ...request,
          headers: { ...request.headers, authorization: `Bearer ${context.access || 'none'}` },
        }),
      },
    ],
  });
}

function registerLoad(url) {
  return load('register', {
    url: `${url}/api/v1/auth/register`,
    method: 'POST',
    connections: 1,
    overallRate: MIX.register,
    headers: { 'content-type': 'application/json' },
    requests: [
      {
        setupRequest: (request) => {
          const id = randomBytes(6).toString('hex');
          return {
            ...request,
            body: JSON.stringify({
              email: `r${id}@example.com`,
              password: PASSWORD,
              username: `r${id}`,
            }),
          };
        },
      },
    ],
  });
}

const BAD_BODIES = [
  '{',
  '[]',
  '{"email":',
  '{"email":{"$gt":""},"password":1}',
  'null',
  '"x"',
  '{"__proto__":{"a":1}}',
];

function badInputLoad(url) {
  let n = 0;
  const paths = [
    '/api/v1/auth/login',
    '/api/v1/auth/register',
    '/api/v1/auth/reset-password',
    '/api/v1/auth/verify-email',
  ];
  return load('bad input', {
    url,
    connections: 2,
    overallRate: MIX.badInput,
    requests: [
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        setupRequest: (request) => {
          n++;
          return {
            ...request,
            path: paths[n % paths.length],
            body: BAD_BODIES[n % BAD_BODIES.length],
          };
        },
      },
    ],
  });
}

async function startService(name, databaseUrl, redisKeyPrefix, publicUrl) {
  const lines = { requests: 0, errors: [] };
  let partial = '';
  // Read as it comes rather than kept whole: a long run logs a line per request.
  const read = (chunk) => {
    const text = partial + chunk;
    const complete = text.split('\n');
    partial = complete.pop();
    for (const line of complete) {
      if (line.includes('"msg":"request completed"')) lines.requests++;
      // pino's error and fatal levels; anything not JSON (a crash on stderr) that says ERROR.
      if (/"level":(5\d|6\d)\b/.test(line) || (!line.startsWith('{') && /\bERROR\b/.test(line)))
        lines.errors.push(line);
    }
  };
  const service = await startBuiltService({
    name,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: (dataDir) => ({
      NO_COLOR: '1',
      ...SECRETS,
      DATABASE_URL: databaseUrl || `sqlite:${join(dataDir, 'auth.sqlite')}`,
      ...(redisKeyPrefix ? { REDIS_URL: REDIS_URL, REDIS_KEY_PREFIX: redisKeyPrefix } : {}),
      // Behind HAProxy on loopback: the client address is the one it forwards, as in production.
      ...(publicUrl ? { PUBLIC_URL: publicUrl, TRUST_PROXY: 'loopback' } : {}),
    }),
  });
  service.child.stdout.on('data', read);
  service.child.stderr.on('data', read);
  cleanups.push(() => service.stop());
  return {
    ...service,
    name,
    requests: () => lines.requests,
    errorLines: () => lines.errors,
  };
}

const round = (n) => (n >= 100 ? n.toFixed(0) : n.toFixed(1));

/** RSS per quarter of the run; it has levelled off when the last quarter grew little over the second. */
function memoryTrend(samples) {
  const quarter = (q) => {
    const from = Math.floor((samples.length * (q - 1)) / 4);
    // A short run has fewer samples than quarters: each quarter then takes at least one.
    const slice = samples.slice(from, Math.max(Math.floor((samples.length * q) / 4), from + 1));
    return Math.max(...slice);
  };
  const quarters = [1, 2, 3, 4].map(quarter);
  // Whole megabytes, so a shrink of a fraction of one is not shown as "-0".
  const growth = Math.round(quarters[3]) - Math.round(quarters[1]);
  const levelled = growth <= Math.max(10, quarters[1] * 0.05);
  return {
    levelled,
    text: `highest per quarter of the run ${quarters.map((q) => `${q.toFixed(0)} MB`).join(', ')} (last quarter ${growth >= 0 ? '+' : ''}${growth} MB over the second: ${levelled ? 'levelled off' : 'still growing'})`,
  };
}

function summarize(results, instances, memory, proxy, load) {
  const serverErrors = results.reduce(
    (n, r) =>
      n +
      Object.entries(r.statuses)
        .filter(([code]) => code >= '500')
        .reduce((m, [, c]) => m + c, 0),
    0,
  );
  const unexpected = results.flatMap((r, i) =>
    Object.entries(r.statuses)
      .filter(([code]) => !EXPECTED[i].includes(Number(code)))
      .map(([code, count]) => `${r.name} ${code}: ${count}`),
  );
  const connectionErrors = results.reduce((n, r) => n + r.errors, 0);
  const timeouts = results.reduce((n, r) => n + r.timeouts, 0);
  const total = results.reduce((n, r) => n + r.rps, 0);
  const errorLines = instances.flatMap((instance) => instance.errorLines());
  const downLines = proxy ? proxy.downLines() : [];
  const trends = memory.map((m) => memoryTrend(m.samples));
  const served = instances.reduce((n, instance) => n + instance.requests(), 0);
  const lines = [
    '| part of the mix | target rate | achieved | answers by status | p50 (ms) | p99 (ms) |',
    '|---|---|---|---|---|---|',
    ...results.map(
      (r, i) =>
        `| ${r.name} | ${Object.values(MIX)[i]}/s | ${round(r.rps)}/s | ${Object.entries(r.statuses)
          .map(([code, count]) => `${code}: ${count}`)
          .join(', ')} | ${r.p50} | ${r.p99} |`,
    ),
    `| all | ${Object.values(MIX).reduce((a, b) => a + b, 0)}/s | ${round(total)}/s | | | |`,
    '',
    `- Unexpected answers: ${unexpected.length > 0 ? unexpected.join(', ') : 'none'}; 5xx answers: ${serverErrors}; connection errors: ${connectionErrors}; timeouts: ${timeouts}; error lines in the log: ${instances.map((instance) => (instances.length > 1 ? `${instance.name} ${instance.errorLines().length}` : instance.errorLines().length)).join(', ')}.`,
    ...(proxy
      ? [
          `- Through HAProxy ([examples/haproxy/haproxy.cfg](../examples/haproxy/haproxy.cfg)): requests served ${instances.map((instance) => `${instance.name} ${instance.requests()} (${((100 * instance.requests()) / Math.max(served, 1)).toFixed(0)} %)`).join(', ')}; instances taken out of service: ${downLines.length}.`,
        ]
      : []),
    ...instances.map(
      (instance, i) =>
        `- RSS${instances.length > 1 ? ` of ${instance.name}` : ''}: ${memory[i].start.toFixed(0)} MB as the load started, ${memory[i].end.toFixed(0)} MB at its end, ${memory[i].peak.toFixed(0)} MB at most since the process started; ${trends[i].text}.`,
    ),
    `- ${DURATION} s on ${cpus()[0].model.trim()}, ${availableParallelism()} cores; Node ${process.version}; ${setupName()}; \`node ${[...NODE_FLAGS, 'dist/main.js'].join(' ')}\`, \`NODE_ENV=production\`, \`BCRYPT_COST=10\`, rate limits raised${proxy ? `, \`TRUST_PROXY=loopback\`; ${proxy.version.replace(/ - https?:.*$/, '')}` : ''}; load from autocannon on the same machine, over loopback.`,
    `- Load average (1 min) of the machine: ${load[0].toFixed(1)} as the load started, ${Math.max(...load).toFixed(1)} at most, ${load[load.length - 1].toFixed(1)} at the end (the service, the load and HAProxy themselves included).`,
    `- Run at ${new Date().toISOString()}.`,
  ];
  for (const line of errorLines.slice(0, 5))
    lines.push(`- Error logged: \`${line.trim().slice(0, 200)}\``);
  for (const line of downLines.slice(0, 5))
    lines.push(`- HAProxy: \`${line.trim().slice(0, 200)}\``);
  return {
    text: lines.join('\n'),
    passed:
      unexpected.length === 0 &&
      serverErrors === 0 &&
      connectionErrors === 0 &&
      timeouts === 0 &&
      errorLines.length === 0 &&
      downLines.length === 0 &&
      trends.every((trend) => trend.levelled),
  };
}

function setupName() {
  if (INSTANCES > 1) return 'two instances behind HAProxy, MariaDB and Redis';
  if (!DATABASE_URL) return 'embedded SQLite';
  return REDIS_URL ? 'MariaDB and Redis' : 'MariaDB';
}

/** One block per setup (SQLite; MariaDB; MariaDB and Redis; two instances), each replaced by its next run. */
function writeDoc(text) {
  const setup = setupName();
  const key = setup.toLowerCase().replace(/[^a-z]+/g, '-');
  const start = `<!-- soak:${key}:start -->`;
  const end = `<!-- soak:${key}:end -->`;
  const file = join(ROOT, 'docs', 'soak.md');
  let doc = readFileSync(file, 'utf8');
  if (!doc.includes(start))
    doc = `${doc.trimEnd()}\n\n## Last run on ${setup}\n\n${start}\n${end}\n`;
  const updated = `${doc.slice(0, doc.indexOf(start) + start.length)}\n${text}\n${doc.slice(doc.indexOf(end))}`;
  writeFileSync(file, updated);
  // In the repository's own format, so `npm run format:check` (CI) passes on a fresh run.
  execSync(`npx prettier --write ${JSON.stringify(file)}`, { cwd: ROOT, stdio: 'ignore' });
  console.log('Written to docs/soak.md');
}

main().catch(async (error) => {
  console.error(error instanceof SetupError ? `soak: ${error.message}` : error);
  await cleanUp();
  process.exit(1);
});
