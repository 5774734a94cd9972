'use strict';
// npm run bench:webhooks: what webhook endpoints add to a registration and a login (issue 35),
// and how fast the outbox delivers. The built service (npm run build first) on each database,
// started fresh with 0, 1 and 5 endpoints (events "*") pointing at a receiver on loopback that
// answers 204 at once; each figure with endpoints is a ratio to the 0-endpoint run of the same
// round. Then a backlog: registrations as fast as they go (BCRYPT_COST 4, so the outbox falls
// behind) with 1 and 5 endpoints, and the time until the receiver has every event.
// WEBHOOK_BENCH_RUNS (rounds, default 3; medians kept), WEBHOOK_BENCH_DURATION (seconds per load
// run, default 5), WEBHOOK_BENCH_BACKLOG (registrations, default 500), BENCH_DATABASES (default
// sqlite,mariadb), BENCH_MYSQL_URL (default mysql://root@127.0.0.1:3306; unreachable: skipped).
// See docs/performance.md, "Webhooks".
const { randomBytes } = require('node:crypto');
const http = require('node:http');
const { mkdtempSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { performance } = require('node:perf_hooks');
const { jsonPost, postEach, runAutocannon } = require('./load');
const { startBuiltService } = require('./service');

const RUNS = Number(process.env.WEBHOOK_BENCH_RUNS || 3);
const DURATION = Number(process.env.WEBHOOK_BENCH_DURATION || 5);
const BACKLOG = Number(process.env.WEBHOOK_BENCH_BACKLOG || 500);
const DATABASES = (process.env.BENCH_DATABASES || 'sqlite,mariadb').split(',').map((d) => d.trim());
const MYSQL_SERVER = (process.env.BENCH_MYSQL_URL || 'mysql://root@127.0.0.1:3306').replace(
  /\/$/,
  '',
);
const COST = 10;
const ENDPOINTS = [0, 1, 5];
const REGISTER_CONNECTIONS = 16;
const LOGIN_CONNECTIONS = 4;
const PASSWORD = 'webhook-bench-1';
/** How long the receiver may take to get a backlog's last event before the run gives up. */
const DRAIN_LIMIT_MS = 300_000;

/** A prompt receiver: 204 at once, each webhook-id counted once per path. */
async function startReceiver() {
  const seen = new Map();
  const server = http.createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      const ids = seen.get(request.url) ?? new Set();
      seen.set(request.url, ids);
      ids.add(request.headers['webhook-id']);
      response.writeHead(204).end();
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: (path) => `http://127.0.0.1:${server.address().port}${path}`,
    count: (prefix) =>
      [...seen].reduce((sum, [path, ids]) => sum + (path.startsWith(prefix) ? ids.size : 0), 0),
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

async function main() {
  const started = performance.now();
  const databases = await reachableDatabases();
  const loadRuns = databases.length * RUNS * ENDPOINTS.length * 2;
  console.log(
    `${databases.map((d) => d.label).join(', ')}; ${RUNS} round(s), endpoints ${ENDPOINTS.join(', ')}: ` +
      `${loadRuns} load runs of ${DURATION} s and ${databases.length * 2} backlogs of ${BACKLOG} ` +
      `registrations, about ${Math.ceil((loadRuns * (DURATION + 4)) / 60) + databases.length} min.`,
  );
  const receiver = await startReceiver();
  const sections = [];
  try {
    for (const database of databases) {
      const rounds = [];
      for (let round = 0; round < RUNS; round++) {
        // Alternate the order so that the machine's drift within a round favours none.
        const order = round % 2 === 0 ? ENDPOINTS : [...ENDPOINTS].reverse();
        const figures = {};
        for (const count of order) {
          figures[count] = await latencyRun(database, receiver, count, `/r${round}e${count}/`);
          console.log(
            `${database.label}, round ${round + 1}, ${count} endpoint(s): ${line(figures[count])}`,
          );
        }
        rounds.push(figures);
      }
      const backlogs = [];
      for (const count of ENDPOINTS.filter((n) => n > 0)) {
        backlogs.push(await backlogRun(database, receiver, count));
        console.log(
          `${database.label}, backlog, ${count} endpoint(s): ${JSON.stringify(backlogs.at(-1))}`,
        );
      }
      sections.push({ database, rounds, backlogs });
    }
  } finally {
    await receiver.close();
  }
  console.log(`\n${report(sections)}`);
  console.log(`\nTook ${Math.round((performance.now() - started) / 1000)} s.`);
}

/** A fresh service with `count` endpoints: registrations, then logins, each for DURATION. */
async function latencyRun(database, receiver, count, prefix) {
  const db = await database.create();
  const service = await startService(db, COST);
  try {
    await addEndpoints(service, db, receiver, count, prefix, ['*']);
    const tag = randomBytes(4).toString('hex');
    let next = 0;
    const register = await postEach({
      url: `${service.url}/api/v1/auth/register`,
      connections: REGISTER_CONNECTIONS,
      duration: DURATION,
      nextBody: () => {
        const name = `w${tag}${next++}`;
        return { email: `${name}@example.com`, username: name, password: PASSWORD };
      },
    });
    const login = await runAutocannon({
      url: `${service.url}/api/v1/auth/login`,
      method: 'POST',
      connections: LOGIN_CONNECTIONS,
      duration: DURATION,
      headers: { 'content-type': 'application/json', 'x-token-delivery': 'body' },
      body: JSON.stringify({ email: service.email, password: PASSWORD }),
    });
    return { register, login };
  } finally {
    await service.stop();
    await db.drop();
  }
}

/** BACKLOG registrations back to back, then until the receiver has every user.created. */
async function backlogRun(database, receiver, count) {
  const prefix = `/backlog-e${count}-${randomBytes(3).toString('hex')}/`;
  const db = await database.create();
  const service = await startService(db, 4);
  try {
    await addEndpoints(service, db, receiver, count, prefix, ['user.created']);
    const expected = BACKLOG * count;
    const tag = randomBytes(4).toString('hex');
    const start = performance.now();
    let next = 0;
    const workers = Array.from({ length: REGISTER_CONNECTIONS }, async () => {
      while (next < BACKLOG) {
        const name = `b${tag}${next++}`;
        await jsonPost(`${service.url}/api/v1/auth/register`, {
          email: `${name}@example.com`,
          username: name,
          password: PASSWORD,
        });
      }
    });
    await Promise.all(workers);
    const registered = performance.now();
    const queuedAtEnd = expected - receiver.count(prefix);
    while (receiver.count(prefix) < expected) {
      if (performance.now() - registered > DRAIN_LIMIT_MS) {
        throw new Error(`only ${receiver.count(prefix)} of ${expected} events arrived`);
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const done = performance.now();
    return {
      endpoints: count,
      events: expected,
      registerMs: registered - start,
      queuedAtEnd,
      drainMs: done - registered,
      totalMs: done - start,
      // The whole run's rate; the drain's alone when a backlog was left to drain.
      perSecond: expected / ((done - start) / 1000),
      drainPerSecond: queuedAtEnd > 0 ? queuedAtEnd / ((done - registered) / 1000) : null,
    };
  } finally {
    await service.stop();
    await db.drop();
  }
}

async function startService(db, cost) {
  const service = await startBuiltService({
    name: 'webhooks-bench',
    env: () => ({
      BCRYPT_COST: String(cost),
      DATABASE_URL: db.url,
      // The receiver is on loopback, over http: allowed for the bench only.
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    }),
  });
  const email = 'bench@example.com';
  await jsonPost(`${service.url}/api/v1/auth/register`, {
    email,
    password: PASSWORD,
    username: 'bench',
  });
  return { ...service, email };
}

/** An administrator (promoted in SQL) adds `count` endpoints, one path of `prefix` each. */
async function addEndpoints(service, db, receiver, count, prefix, events) {
  if (count === 0) return;
  const name = `admin${randomBytes(4).toString('hex')}`;
  const email = `${name}@example.com`;
  await jsonPost(`${service.url}/api/v1/auth/register`, {
    email,
    username: name,
    password: PASSWORD,
  });
  await db.sql('UPDATE users SET role = ? WHERE email_normalized = ?', ['admin', email]);
  const { access_token: token } = await jsonPost(
    `${service.url}/api/v1/auth/login`,
    { email, password: PASSWORD },
    { 'x-token-delivery': 'body' },
  );
  for (let i = 0; i < count; i++) {
    await jsonPost(
      `${service.url}/api/v1/admin/webhooks`,
      { url: receiver.url(`${prefix}${i}`), events },
      { authorization: `Bearer ${token}` },
    );
  }
}

/** SQLite in a folder of its own, or a throwaway MariaDB database, per service. */
async function reachableDatabases() {
  const databases = [];
  if (DATABASES.includes('sqlite')) {
    databases.push({
      label: 'SQLite',
      create: async () => {
        const dir = mkdtempSync(join(tmpdir(), 'auth-webhooks-bench-'));
        const file = join(dir, 'auth.sqlite');
        return {
          url: `sqlite:${file}`,
          sql: async (statement, params) => {
            const Database = require('better-sqlite3');
            const connection = new Database(file, { timeout: 10_000 });
            try {
              connection.prepare(statement).run(params);
            } finally {
              connection.close();
            }
          },
          drop: async () => rmSync(dir, { recursive: true, force: true }),
        };
      },
    });
  }
  if (DATABASES.includes('mariadb')) {
    const mysql = require('mysql2/promise');
    const run = (uri, statement, params) =>
      mysql.createConnection({ uri, connectTimeout: 3000 }).then(async (connection) => {
        try {
          await connection.query(statement, params);
        } finally {
          await connection.end();
        }
      });
    try {
      await run(MYSQL_SERVER, 'SELECT 1');
      databases.push({
        label: 'MariaDB',
        create: async () => {
          const name = `auth_whbench_${randomBytes(4).toString('hex')}`;
          await run(MYSQL_SERVER, `CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4`);
          const url = `${MYSQL_SERVER}/${name}`;
          return {
            url,
            sql: (statement, params) => run(url, statement, params),
            drop: () => run(MYSQL_SERVER, `DROP DATABASE IF EXISTS \`${name}\``),
          };
        },
      });
    } catch (error) {
      console.log(
        `MariaDB not reachable at ${MYSQL_SERVER} (${error.code || error.message}): not measured.`,
      );
    }
  }
  if (databases.length === 0) throw new Error('No database to measure on.');
  return databases;
}

const FIGURES = [
  ['register/s', (f) => f.register.rps, 'throughput'],
  ['register p50 (ms)', (f) => f.register.p50, 'latency'],
  ['register p99 (ms)', (f) => f.register.p99, 'latency'],
  ['login/s', (f) => f.login.rps, 'throughput'],
  ['login p50 (ms)', (f) => f.login.p50, 'latency'],
  ['login p99 (ms)', (f) => f.login.p99, 'latency'],
];

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}
const fmt = (n, digits = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const line = (f) =>
  `register ${fmt(f.register.rps, 1)}/s p50 ${f.register.p50} ms p99 ${f.register.p99} ms, ` +
  `login ${fmt(f.login.rps, 1)}/s p50 ${f.login.p50} ms p99 ${f.login.p99} ms` +
  (f.register.failures + f.login.failures
    ? `, ${f.register.failures + f.login.failures} failed`
    : '');

/** Markdown: medians of the rounds, each ratio the median of the per-round ratios (its range). */
function report(sections) {
  const trial = RUNS < 3 || DURATION < 5 ? ' (a trial, not a measurement)' : '';
  const rows = [
    `Webhooks${trial}: each ratio is the figure over the same round's run with no endpoint (latency: ×, above 1 slower; throughput: %, below 100 slower).`,
    '',
    '| database | figure | 0 endpoints | 1 endpoint | ratio | 5 endpoints | ratio |',
    '|---|---|---|---|---|---|---|',
  ];
  for (const { database, rounds } of sections) {
    for (const [name, read, kind] of FIGURES) {
      const cells = [database.label, name, fmt(median(rounds.map((r) => read(r[0]))), 1)];
      for (const count of [1, 5]) {
        const ratios = rounds.map((r) => read(r[count]) / read(r[0]));
        // No answer in the reference run (a load too short for the machine): no ratio.
        const show = (x) =>
          !Number.isFinite(x)
            ? 'n/a'
            : kind === 'latency'
              ? `×${fmt(x, 2)}`
              : `${fmt(100 * x, 1)} %`;
        cells.push(fmt(median(rounds.map((r) => read(r[count]))), 1));
        cells.push(
          `${show(median(ratios))} (${show(Math.min(...ratios))}–${show(Math.max(...ratios))})`,
        );
      }
      rows.push(`| ${cells.join(' | ')} |`);
    }
  }
  rows.push(
    '',
    `Outbox: ${BACKLOG} registrations back to back (${REGISTER_CONNECTIONS} at a time, BCRYPT_COST 4), each a user.created for every endpoint.`,
    '',
    '| database | endpoints | events | registrations took (s) | queued when they ended | then all delivered in (s) | events/s, whole run | events/s, draining |',
    '|---|---|---|---|---|---|---|---|',
  );
  for (const { database, backlogs } of sections) {
    for (const b of backlogs) {
      rows.push(
        `| ${database.label} | ${b.endpoints} | ${b.events} | ${fmt(b.registerMs / 1000, 2)} | ${b.queuedAtEnd} | ${fmt(b.drainMs / 1000, 2)} | ${fmt(b.perSecond, 0)} | ${b.drainPerSecond === null ? 'no backlog' : fmt(b.drainPerSecond, 0)} |`,
      );
    }
  }
  rows.push(
    '',
    `- ${RUNS} round(s) of ${DURATION} s per load run; order 0, 1, 5 endpoints, reversed every other round; a fresh service and database per run (\`node --max-semi-space-size=8 dist/main.js\`, \`NODE_ENV=production\`, \`BCRYPT_COST=${COST}\`, rate limits raised, WEBHOOK_ALLOW_HTTP and WEBHOOK_ALLOW_PRIVATE_NETWORKS on for the loopback receiver). Registrations: ${REGISTER_CONNECTIONS} connections, a new user each; logins: ${LOGIN_CONNECTIONS} connections, one user. Endpoints subscribe to "*": a registration queues a user.created per endpoint, a login a session.created. The receiver (node:http, 204 at once) and autocannon share this process, on the same machine.`,
  );
  return rows.join('\n');
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
