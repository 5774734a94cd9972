'use strict';
// npm run soak: a mixed load on loopback for a few minutes against the built service, checking
// that nothing answers 5xx, nothing is logged at error level, and memory levels off.
// SOAK_DURATION (seconds, default 180), SOAK_DATABASE_URL (default: an embedded SQLite file),
// SOAK_REDIS_URL (optional). Writes its figures to docs/soak.md. See the README.
const { execSync } = require('node:child_process');
const { randomBytes } = require('node:crypto');
const { readFileSync, writeFileSync } = require('node:fs');
const { availableParallelism, cpus } = require('node:os');
const { join } = require('node:path');
const autocannon = require('autocannon');
const { followRefreshChain, jsonPost } = require('../bench/load');
const { NODE_FLAGS, ROOT, startBuiltService } = require('../bench/service');

const DURATION = Number(process.env.SOAK_DURATION || 180);
const PASSWORD = 'soak-password-1';
/** Requests per second of each part of the mix (steady rates, not saturation). */
const MIX = { verify: 400, refresh: 100, login: 6, churn: 4, register: 2, badInput: 20 };

async function main() {
  console.log('Building…');
  execSync('npm run -s build', { cwd: ROOT, stdio: 'inherit' });
  const service = await startService();
  try {
    const users = [];
    for (let i = 0; i < 4; i++) users.push(await newUser(service.url, `soak${i}`));
    const samples = [];
    const sampler = setInterval(() => samples.push(service.rssMb()), 2000);
    console.log(`Mixed load for ${DURATION} s…`);
    const results = await Promise.all([
      verifyLoad(service.url, users[0]),
      refreshLoad(service.url, users[1]),
      loginLoad(service.url, users[2]),
      churnLoad(service.url, users[3]),
      registerLoad(service.url),
      badInputLoad(service.url),
    ]);
    clearInterval(sampler);
    samples.push(service.rssMb());
    const report = summarize(results, samples, service.errorLines());
    console.log(`\n${report.text}\n`);
    writeDoc(report.text);
    if (!report.passed) process.exitCode = 1;
  } finally {
    await service.stop();
  }
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
        errors: result.errors,
        timeouts: result.timeouts,
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

async function startService() {
  let log = '';
  const service = await startBuiltService({
    name: 'soak',
    stdio: ['ignore', 'pipe', 'pipe'],
    env: (dataDir) => ({
      NO_COLOR: '1',
      DATABASE_URL: process.env.SOAK_DATABASE_URL || `sqlite:${join(dataDir, 'auth.sqlite')}`,
      ...(process.env.SOAK_REDIS_URL
        ? {
            REDIS_URL: process.env.SOAK_REDIS_URL,
            // Keys of its own: a shared Redis keeps everyone else's data untouched.
            REDIS_KEY_PREFIX: `auth-soak-${randomBytes(4).toString('hex')}:`,
          }
        : {}),
    }),
  });
  service.child.stdout.on('data', (chunk) => (log += chunk));
  service.child.stderr.on('data', (chunk) => (log += chunk));
  return {
    ...service,
    errorLines: () => log.split('\n').filter((line) => /\bERROR\b/.test(line)),
  };
}

/** RSS per quarter of the run; it has levelled off when the last quarter grew little over the second. */
function summarize(results, samples, errorLines) {
  const quarter = (q) => {
    const slice = samples.slice(
      Math.floor((samples.length * (q - 1)) / 4),
      Math.floor((samples.length * q) / 4),
    );
    return Math.max(...slice);
  };
  const quarters = [1, 2, 3, 4].map(quarter);
  const growth = quarters[3] - quarters[1];
  const levelled = growth <= Math.max(10, quarters[1] * 0.05);
  const serverErrors = results.reduce(
    (n, r) =>
      n +
      Object.entries(r.statuses)
        .filter(([code]) => code >= '500')
        .reduce((m, [, c]) => m + c, 0),
    0,
  );
  const failures = results.reduce((n, r) => n + r.errors + r.timeouts, 0);
  const lines = [
    '| part of the mix | target rate | answers by status | p99 (ms) |',
    '|---|---|---|---|',
    ...results.map(
      (r, i) =>
        `| ${r.name} | ${Object.values(MIX)[i]}/s | ${Object.entries(r.statuses)
          .map(([code, count]) => `${code}: ${count}`)
          .join(', ')} | ${r.p99} |`,
    ),
    '',
    `- 5xx answers: ${serverErrors}; connection errors and timeouts: ${failures}; error lines in the log: ${errorLines.length}.`,
    `- RSS, highest per quarter of the run: ${quarters.map((q) => `${q.toFixed(0)} MB`).join(', ')} (last quarter ${growth >= 0 ? '+' : ''}${growth.toFixed(0)} MB over the second: ${levelled ? 'levelled off' : 'still growing'}).`,
    `- ${DURATION} s on ${cpus()[0].model.trim()}, ${availableParallelism()} cores; Node ${process.version}; ${process.env.SOAK_DATABASE_URL ? 'MariaDB' : 'embedded SQLite'}${process.env.SOAK_REDIS_URL ? ' and Redis' : ''}; \`node ${[...NODE_FLAGS, 'dist/main.js'].join(' ')}\`, \`NODE_ENV=production\`, \`BCRYPT_COST=10\`, rate limits raised; load from autocannon on the same machine, over loopback.`,
    `- Run at ${new Date().toISOString()}.`,
  ];
  for (const line of errorLines.slice(0, 5))
    lines.push(`- Error logged: \`${line.trim().slice(0, 200)}\``);
  return {
    text: lines.join('\n'),
    passed: serverErrors === 0 && failures === 0 && errorLines.length === 0 && levelled,
  };
}

/** One block per setup (SQLite; MariaDB; MariaDB and Redis), each replaced by its next run. */
function writeDoc(text) {
  const setup = process.env.SOAK_DATABASE_URL
    ? process.env.SOAK_REDIS_URL
      ? 'MariaDB and Redis'
      : 'MariaDB'
    : 'embedded SQLite';
  const key = setup.toLowerCase().replace(/[^a-z]+/g, '-');
  const start = `<!-- soak:${key}:start -->`;
  const end = `<!-- soak:${key}:end -->`;
  const file = join(ROOT, 'docs', 'soak.md');
  let doc = readFileSync(file, 'utf8');
  if (!doc.includes(start))
    doc = `${doc.trimEnd()}\n\n## Last run on ${setup}\n\n${start}\n${end}\n`;
  const updated = `${doc.slice(0, doc.indexOf(start) + start.length)}\n${text}\n${doc.slice(doc.indexOf(end))}`;
  writeFileSync(file, updated);
  console.log('Written to docs/soak.md');
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
