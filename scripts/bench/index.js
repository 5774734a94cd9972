'use strict';
// npm run bench: the service against the platform's ceiling on this machine. See docs/performance.md.
// BENCH_DURATION (seconds per measurement, default 5), BENCH_RUNS (default 3, the median is kept),
// BENCH_MYSQL_URL (default mysql://root@127.0.0.1:3306; unreachable: the MariaDB part is skipped).
const { execSync, fork, spawn } = require('node:child_process');
const { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } = require('node:fs');
const { availableParallelism, cpus, tmpdir, totalmem } = require('node:os');
const { join } = require('node:path');
const { randomBytes } = require('node:crypto');
const bcrypt = require('bcryptjs');
const { measure, runAutocannon, verifyAtRate, waitForHealth, jsonPost } = require('./load');

const ROOT = join(__dirname, '..', '..');
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
  const hashBound = measureHashBound();
  const rows = [];

  const ceiling = await startCeiling(4100);
  try {
    rows.push({
      name: 'ceiling (node:http + jsonwebtoken, in memory)',
      ...(await measureTokens(ceiling)),
    });
  } finally {
    ceiling.stop();
  }

  let port = 4200;
  for (const target of await databaseTargets()) {
    const service = await startService((port += 1), target);
    try {
      const figures = await measureTokens(service);
      figures.login = await measure(RUNS, () => loginRate(service));
      figures.p99Alone = await measure(RUNS, () => verifyAtRate(service, PROBE_RATE, DURATION));
      figures.p99Storm = await measure(RUNS, () => stormP99(service));
      figures.rssMb = service.peakRssMb();
      rows.push({ name: `service on ${target.name}`, ...figures });
    } finally {
      await service.stop();
      await target.drop();
    }
  }
  report(rows, hashBound);
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

async function measureTokens(server) {
  const access = (await server.session()).access;
  const verify = await measure(RUNS, () =>
    runAutocannon({
      url: `${server.url}/api/v1/auth/verify-token`,
      connections: CONNECTIONS,
      duration: DURATION,
      headers: { authorization: `Bearer ${access}` },
    }),
  );
  const refresh = await measure(RUNS, async () => {
    const tokens = [];
    for (let i = 0; i < REFRESH_CONNECTIONS; i++) tokens.push((await server.session()).refresh);
    return runAutocannon({
      url: `${server.url}/api/v1/auth/refresh`,
      method: 'POST',
      connections: REFRESH_CONNECTIONS,
      duration: DURATION,
      setupClient: followRefreshChain(tokens),
    });
  });
  return { verify, refresh };
}

/** Each connection sends the refresh token its previous response set: a real rotation chain. */
function followRefreshChain(tokens) {
  return (client) => {
    const use = (token) => client.setHeaders({ cookie: `refresh_token=${token}` });
    use(tokens.pop());
    client.on('headers', ({ headers }) => {
      for (let i = 0; i < headers.length; i += 2) {
        if (
          headers[i].toLowerCase() === 'set-cookie' &&
          headers[i + 1].startsWith('refresh_token=')
        ) {
          use(headers[i + 1].slice('refresh_token='.length).split(';')[0]);
        }
      }
    });
  };
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

async function startCeiling(port) {
  const child = fork(join(__dirname, 'ceiling-server.js'), {
    env: { ...process.env, PORT: String(port) },
  });
  await new Promise((resolve) => child.once('message', resolve));
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

async function startService(port, target) {
  const dataDir = mkdtempSync(join(tmpdir(), 'auth-bench-data-'));
  const child = spawn(process.execPath, [join(ROOT, 'dist', 'main.js')], {
    cwd: dataDir,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: {
      PATH: process.env.PATH,
      NODE_ENV: 'production',
      PORT: String(port),
      JWT_ACCESS_SECRET: randomBytes(32).toString('hex'),
      JWT_REFRESH_SECRET: randomBytes(32).toString('hex'),
      MAIL_OUTBOX_DIR: join(dataDir, 'mail'),
      DATA_DIR: dataDir,
      BCRYPT_COST: String(COST),
      THROTTLE_LIMIT: '10000000',
      THROTTLE_AUTH_LIMIT: '10000000',
      ...target.env,
    },
  });
  const url = `http://127.0.0.1:${port}`;
  await waitForHealth(`${url}/api/v1/health`, child);
  const email = 'bench@example.com';
  await jsonPost(`${url}/api/v1/auth/register`, { email, password: PASSWORD, username: 'bench' });
  return {
    url,
    email,
    session: async () => {
      const body = await jsonPost(
        `${url}/api/v1/auth/login`,
        { email, password: PASSWORD },
        { 'x-token-delivery': 'body' },
      );
      return { access: body.access_token, refresh: body.refresh_token };
    },
    peakRssMb: () => {
      const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
      return Number(/VmHWM:\s+(\d+) kB/.exec(status)[1]) / 1024;
    },
    stop: async () => {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

function report(rows, hashBound) {
  const [ceiling, ...services] = rows;
  const fmt = (n, digits = 0) =>
    n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
  const pct = (a, b) => `${fmt((100 * a) / b)} %`;
  const lines = [
    '| figure | ceiling | ' +
      services.map((s) => s.name.replace('service on ', 'service, ')).join(' | ') +
      ' | target |',
    '|---|---|' + services.map(() => '---|').join('') + '---|',
    `| verify-token req/s (${CONNECTIONS} connections) | ${fmt(ceiling.verify.rps)} | ` +
      services
        .map((s) => `${fmt(s.verify.rps)} (${pct(s.verify.rps, ceiling.verify.rps)})`)
        .join(' | ') +
      ' | ≥ 20 % |',
    `| verify-token p50 / p99 (ms) | ${ceiling.verify.p50} / ${ceiling.verify.p99} | ` +
      services.map((s) => `${s.verify.p50} / ${s.verify.p99}`).join(' | ') +
      ' | |',
    `| refresh req/s (${REFRESH_CONNECTIONS} connections, rotation) | ${fmt(ceiling.refresh.rps)} | ` +
      services
        .map((s) => `${fmt(s.refresh.rps)} (${pct(s.refresh.rps, ceiling.refresh.rps)})`)
        .join(' | ') +
      ' | ≥ 10 % |',
    `| login/s at cost ${COST} (${LOGIN_CONNECTIONS} connections) | hash-bound ${fmt(hashBound.loginsPerSecond, 1)} | ` +
      services
        .map((s) => `${fmt(s.login.ok, 1)} (${pct(s.login.ok, hashBound.loginsPerSecond)})`)
        .join(' | ') +
      ' | ≥ 85 % |',
    `| verify-token p99 at ${PROBE_RATE} req/s, alone → during login storm (ms) | | ` +
      services
        .map(
          (s) =>
            `${s.p99Alone.p99} → ${s.p99Storm.p99} (×${fmt(s.p99Storm.p99 / s.p99Alone.p99, 1)})`,
        )
        .join(' | ') +
      ' | ≤ ×5 |',
    `| peak RSS (MB) | | ` + services.map((s) => fmt(s.rssMb)).join(' | ') + ' | < 200 |',
  ];
  const table = lines.join('\n');
  console.log(`\n${table}\n`);
  const conditions = [
    `- Machine: ${cpus()[0].model}, ${availableParallelism()} cores, ${fmt(totalmem() / 2 ** 30, 1)} GiB; ${process.platform} ${process.arch}.`,
    `- Node ${process.version}; NestJS ${version('@nestjs/core')}, Express ${version('express')}, TypeORM ${version('typeorm')}, mysql2 ${version('mysql2')}, sql.js ${version('sql.js')}, bcryptjs ${version('bcryptjs')}, autocannon ${version('autocannon')}.`,
    `- Each figure is the median of ${RUNS} runs of ${DURATION} s; load generator (autocannon) on the same machine, over loopback.`,
    `- Service: \`NODE_ENV=production\`, \`BCRYPT_COST=${COST}\`, rate limits raised to 10⁷, default pool sizes; one bcrypt comparison costs ${fmt(hashBound.compareMs, 1)} ms of CPU here, so the hash-bound limit is ${availableParallelism()} cores ÷ that = ${fmt(hashBound.loginsPerSecond, 1)} logins/s.`,
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
