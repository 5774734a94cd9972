'use strict';
// npm run bench: the service against the platform's ceiling on this machine. See docs/performance.md.
// BENCH_DURATION (seconds per measurement, default 5), BENCH_RUNS (default 3, the median is kept),
// BENCH_MYSQL_URL (default mysql://root@127.0.0.1:3306; unreachable: the MariaDB part is skipped).
const { execSync, fork } = require('node:child_process');
const { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } = require('node:fs');
const { availableParallelism, cpus, tmpdir, totalmem } = require('node:os');
const { join } = require('node:path');
const { randomBytes } = require('node:crypto');
const bcrypt = require('bcryptjs');
const { runAutocannon, verifyAtRate, jsonPost, followRefreshChain } = require('./load');
const { NODE_FLAGS, ROOT, startBuiltService } = require('./service');

const DURATION = Number(process.env.BENCH_DURATION || 5);
const RUNS = Number(process.env.BENCH_RUNS || 3);
const COST = Number(process.env.BCRYPT_COST || 10);
const CONNECTIONS = 50;
const REFRESH_CONNECTIONS = 20;
const LOGIN_CONNECTIONS = 16;
const PROBE_RATE = 400;
const PASSWORD = 'bench-password-1';

async function main() {
  console.log('Building…');
  execSync('npm run -s build', { cwd: ROOT, stdio: 'inherit' });
  const targets = await databaseTargets();
  // Everything starts up front, so each round measures every server within seconds.
  const ceiling = await startCeiling();
  const services = [];
  try {
    for (const target of targets) {
      services.push({ target, server: await startService(target) });
    }
    const rounds = [];
    for (let round = 1; round <= RUNS; round++) {
      console.log(`Round ${round} of ${RUNS}…`);
      const figures = [];
      for (const { server } of services) {
        // Each service figure is paired with a ceiling run just before it: the machine's speed
        // drifts within minutes, and a ratio should compare like with like.
        const ceilingVerify = await verifyRun(ceiling);
        const verify = await verifyRun(server);
        const ceilingRefresh = await refreshRun(ceiling);
        const refresh = await refreshRun(server);
        // Measured next to the logins it judges: this machine's speed drifts within minutes.
        const hashBound = measureHashBound();
        const login = await loginRate(server);
        const p99Alone = await verifyAtRate(server, PROBE_RATE, DURATION);
        const p99Storm = await stormP99(server);
        figures.push({
          ceilingVerify,
          ceilingRefresh,
          verify,
          refresh,
          login,
          verifyShare: verify.rps / ceilingVerify.rps,
          refreshShare: refresh.rps / ceilingRefresh.rps,
          hashBound,
          loginShare: login.ok / hashBound.loginsPerSecond,
          p99Alone: p99Alone.p99,
          p99Storm: p99Storm.p99,
          stormFactor: p99Storm.p99 / Math.max(1, p99Alone.p99),
        });
      }
      rounds.push({ figures });
    }
    const rows = services.map(({ target, server }, i) => ({
      name: target.name,
      rssMb: server.peakRssMb(),
      ...medianOf(rounds.map((r) => r.figures[i])),
    }));
    report(
      {
        verify: medianOf(rounds.flatMap((r) => r.figures.map((f) => f.ceilingVerify))),
        refresh: medianOf(rounds.flatMap((r) => r.figures.map((f) => f.ceilingRefresh))),
      },
      rows,
      medianOf(rounds.flatMap((r) => r.figures.map((f) => f.hashBound))),
    );
  } finally {
    ceiling.stop();
    for (const { target, server } of services) {
      await server.stop();
      await target.drop();
    }
  }
}

/** Figure by figure, the median across rounds (nested objects included). */
function medianOf(items) {
  const out = {};
  for (const key of Object.keys(items[0])) {
    out[key] =
      typeof items[0][key] === 'object'
        ? medianOf(items.map((item) => item[key]))
        : median(items.map((item) => item[key]));
  }
  return out;
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** Logins per second the hashing alone allows: cores ÷ CPU seconds of one comparison. */
function measureHashBound() {
  const hash = bcrypt.hashSync(PASSWORD, COST);
  bcrypt.compareSync(PASSWORD, hash);
  const rounds = 10;
  const start = process.cpuUsage();
  for (let i = 0; i < rounds; i++) bcrypt.compareSync(PASSWORD, hash);
  const used = process.cpuUsage(start);
  const seconds = (used.user + used.system) / 1e6 / rounds;
  return { compareMs: seconds * 1000, loginsPerSecond: availableParallelism() / seconds };
}

async function verifyRun(server) {
  const { access } = await server.session();
  return runAutocannon({
    url: `${server.url}/api/v1/auth/verify-token`,
    connections: CONNECTIONS,
    duration: DURATION,
    headers: { authorization: `Bearer ${access}` },
  });
}

async function refreshRun(server) {
  const tokens = [];
  for (let i = 0; i < REFRESH_CONNECTIONS; i++) tokens.push((await server.session()).refresh);
  return runAutocannon({
    url: `${server.url}/api/v1/auth/refresh`,
    method: 'POST',
    connections: REFRESH_CONNECTIONS,
    duration: DURATION,
    setupClient: followRefreshChain(() => tokens.pop()),
  });
}

function loginRate(server) {
  return runAutocannon({
    url: `${server.url}/api/v1/auth/login`,
    method: 'POST',
    connections: LOGIN_CONNECTIONS,
    duration: DURATION,
    headers: { 'content-type': 'application/json', 'x-token-delivery': 'body' },
    body: JSON.stringify({ email: server.email, password: PASSWORD }),
  });
}

async function stormP99(server) {
  const [probe] = await Promise.all([
    verifyAtRate(server, PROBE_RATE, DURATION),
    loginRate(server),
  ]);
  return probe;
}

async function databaseTargets() {
  const dir = mkdtempSync(join(tmpdir(), 'auth-bench-'));
  const targets = [
    {
      name: 'SQLite (sql.js)',
      env: { DATABASE_URL: `sqlite:${join(dir, 'auth.sqlite')}` },
      drop: async () => rmSync(dir, { recursive: true, force: true }),
    },
  ];
  const server = process.env.BENCH_MYSQL_URL || 'mysql://root@127.0.0.1:3306';
  try {
    const mysql = require('mysql2/promise');
    const name = `auth_bench_${randomBytes(4).toString('hex')}`;
    const admin = await mysql.createConnection({ uri: server, connectTimeout: 3000 });
    await admin.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4`);
    await admin.end();
    targets.push({
      name: 'MariaDB',
      env: { DATABASE_URL: `${server.replace(/\/$/, '')}/${name}` },
      drop: async () => {
        const connection = await mysql.createConnection({ uri: server });
        await connection.query(`DROP DATABASE IF EXISTS \`${name}\``);
        await connection.end();
      },
    });
  } catch (error) {
    console.log(
      `MariaDB not reachable at ${server} (${error.code || error.message}): measured on SQLite only.`,
    );
  }
  return targets;
}

async function startCeiling() {
  const child = fork(join(__dirname, 'ceiling-server.js'), { env: { ...process.env, PORT: '0' } });
  const { port } = await new Promise((resolve) => child.once('message', resolve));
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    session: async () => {
      const body = await jsonPost(`${url}/bench/session`, {});
      return { access: body.access_token, refresh: body.refresh_token };
    },
    stop: () => child.kill(),
  };
}

async function startService(target) {
  const service = await startBuiltService({
    name: 'bench',
    env: () => ({ BCRYPT_COST: String(COST), ...target.env }),
  });
  const { url } = service;
  const email = 'bench@example.com';
  await jsonPost(`${url}/api/v1/auth/register`, { email, password: PASSWORD, username: 'bench' });
  return {
    ...service,
    email,
    session: async () => {
      const body = await jsonPost(
        `${url}/api/v1/auth/login`,
        { email, password: PASSWORD },
        { 'x-token-delivery': 'body' },
      );
      return { access: body.access_token, refresh: body.refresh_token };
    },
  };
}

function report(ceiling, services, hashBound) {
  const fmt = (n, digits = 0) =>
    n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
  const pct = (share) => `${fmt(100 * share)} %`;
  const cells = (pick) => services.map(pick).join(' | ');
  const lines = [
    `| figure | ceiling | ${cells((s) => `service, ${s.name}`)} | target |`,
    `|---|---|${services.map(() => '---|').join('')}---|`,
    `| verify-token req/s (${CONNECTIONS} connections) | ${fmt(ceiling.verify.rps)} | ` +
      `${cells((s) => `${fmt(s.verify.rps)} (${pct(s.verifyShare)})`)} | ≥ 20 % |`,
    `| verify-token p50 / p99 (ms) | ${ceiling.verify.p50} / ${ceiling.verify.p99} | ` +
      `${cells((s) => `${s.verify.p50} / ${s.verify.p99}`)} | |`,
    `| refresh req/s (${REFRESH_CONNECTIONS} connections, each rotating its own chain) | ${fmt(ceiling.refresh.rps)} | ` +
      `${cells((s) => `${fmt(s.refresh.rps)} (${pct(s.refreshShare)})`)} | ≥ 10 % |`,
    `| login/s at cost ${COST} (${LOGIN_CONNECTIONS} connections) | hash-bound ${fmt(hashBound.loginsPerSecond, 1)} | ` +
      `${cells((s) => `${fmt(s.login.ok, 1)} (${pct(s.loginShare)})`)} | ≥ 85 % |`,
    `| verify-token p99 at ${PROBE_RATE} req/s: alone → during a login storm (ms) | | ` +
      `${cells((s) => `${s.p99Alone} → ${s.p99Storm} (×${fmt(s.stormFactor, 1)})`)} | ≤ ×5 |`,
    `| peak RSS (MB) | | ${cells((s) => fmt(s.rssMb))} | < 200 |`,
  ];
  const table = lines.join('\n');
  console.log(`\n${table}\n`);
  const conditions = [
    `- Machine: ${cpus()[0].model}, ${availableParallelism()} cores, ${fmt(totalmem() / 2 ** 30, 1)} GiB; ${process.platform} ${process.arch}.`,
    `- Node ${process.version}; NestJS ${version('@nestjs/core')}, Fastify ${version('fastify')}, TypeORM ${version('typeorm')}, mysql2 ${version('mysql2')}, sql.js ${version('sql.js')}, bcryptjs ${version('bcryptjs')}, autocannon ${version('autocannon')}.`,
    `- ${RUNS} rounds of ${DURATION} s per figure; each service run is paired with a ceiling run just before it, and each ratio is the median of the per-round ratios (absolute figures: medians too). Load generator: autocannon on the same machine, over loopback.`,
    `- Service: \`node ${[...NODE_FLAGS, 'dist/main.js'].join(' ')}\` as \`npm run start:prod\` runs it, \`NODE_ENV=production\`, \`BCRYPT_COST=${COST}\`, rate limits raised to 10⁷, default pool sizes; one bcrypt comparison costs ${fmt(hashBound.compareMs, 1)} ms of CPU here (median), so the hash-bound limit is ${availableParallelism()} cores ÷ that = ${fmt(hashBound.loginsPerSecond, 1)} logins/s; it is measured again before each login run, and each login ratio uses the one next to it.`,
    `- Login storm: ${LOGIN_CONNECTIONS} connections logging in back to back while verify-token is probed at a fixed ${PROBE_RATE} req/s.`,
    `- Run at ${new Date().toISOString()}.`,
  ].join('\n');
  const docs = join(ROOT, 'docs');
  mkdirSync(docs, { recursive: true });
  const file = join(docs, 'performance.md');
  const existing = safeRead(file);
  const marker = '<!-- bench:start -->';
  const end = '<!-- bench:end -->';
  const block = `${marker}\n${table}\n\n${conditions}\n${end}`;
  const next = existing.includes(marker)
    ? existing.replace(new RegExp(`${marker}[\\s\\S]*${end}`), block)
    : `# Performance\n\n${block}\n`;
  writeFileSync(file, next);
  console.log(`${conditions}\n\nWritten to docs/performance.md`);
}

function version(name) {
  return JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')).version;
}

function safeRead(file) {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
