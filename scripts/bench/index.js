'use strict';
// npm run bench: the service on each HTTP platform against two references on this machine, the
// bare node:http ceiling and a minimal Nest app on Express. See docs/performance.md.
// BENCH_PLATFORMS (comma-separated, default express,fastify: the service's HTTP_PLATFORM),
// BENCH_DATABASES (default sqlite,mariadb), BENCH_DURATION (seconds per measurement, default 5),
// BENCH_RUNS (default 3, the median is kept), BENCH_MYSQL_URL (default mysql://root@127.0.0.1:3306;
// unreachable: the MariaDB part is skipped), BENCH_BASELINE (a git ref: that commit is built in a
// temporary worktree and measured beside this one, and a "current / baseline" table is added).
const { execSync, fork } = require('node:child_process');
const { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } = require('node:fs');
const { availableParallelism, cpus, tmpdir, totalmem } = require('node:os');
const { join } = require('node:path');
const { randomBytes } = require('node:crypto');
const bcrypt = require('bcryptjs');
const { runAutocannon, verifyAtRate, jsonPost, followRefreshChain } = require('./load');
const { NODE_FLAGS, ROOT, startBuiltService } = require('./service');
const { currentCommit, prepareBaseline, resolveCommit, sameLockfile } = require('./baseline');

const DURATION = Number(process.env.BENCH_DURATION || 5);
const RUNS = Number(process.env.BENCH_RUNS || 3);
const PLATFORMS = choice('BENCH_PLATFORMS', ['express', 'fastify']);
const DATABASES = choice('BENCH_DATABASES', ['sqlite', 'mariadb']);
const BASELINE = process.env.BENCH_BASELINE?.trim() || undefined;
/** What the current service does by default in production; older builds served the API docs. */
const BASELINE_ENV = { API_DOCS: 'false' };
/** Seconds to build the baseline's worktree beside this checkout, and to npm ci it if need be. */
const BASELINE_BUILD = 60;
const BASELINE_NPM_CI = 300;
const COST = Number(process.env.BCRYPT_COST || 10);
const CONNECTIONS = 50;
const REFRESH_CONNECTIONS = 20;
const LOGIN_CONNECTIONS = 16;
const PROBE_RATE = 400;
const PASSWORD = 'bench-password-1';
/** Load runs per service and round (three verify, two refresh, login, p99 alone, p99 in a storm). */
const MEASUREMENTS = 8;
/** Seconds per service and round besides the load: sessions, the hash bound, autocannon start. */
const ROUND_OVERHEAD = 4;

const REFERENCES = {
  node: 'node:http ceiling',
  nest: 'minimal Nest app (Express)',
};
/** Issue 13 item 7: each ratio is the service's figure over its reference's, run just before it. */
const TARGETS = {
  express: { verifyReference: 'nest', verify: 0.6, refresh: 0.08 },
  fastify: { verifyReference: 'node', verify: 0.2, refresh: 0.1 },
};
const LOGIN_TARGET = 0.85;
const STORM_TARGET = 3;
const RSS_TARGET_MB = 200;

/** A comma-separated subset of `all` from the environment; all of them by default. */
function choice(name, all) {
  const value = process.env[name];
  if (!value) return all;
  const picked = value
    .split(',')
    .map((item) => item.trim().toLowerCase())
    .filter(Boolean);
  const unknown = picked.filter((item) => !all.includes(item));
  if (unknown.length > 0 || picked.length === 0) {
    throw new Error(`${name}: expected a comma-separated subset of ${all.join(', ')}`);
  }
  return all.filter((item) => picked.includes(item));
}

async function main() {
  const started = Date.now();
  const baselineCommit = BASELINE === undefined ? undefined : resolveCommit(BASELINE);
  const baselineNpmCi = baselineCommit !== undefined && !sameLockfile(baselineCommit);
  const databases = await reachableDatabases();
  const plans = databases.flatMap((database) =>
    PLATFORMS.map((platform) => ({ platform, database })),
  );
  const perPlan = BASELINE === undefined ? 1 : 2;
  const estimate =
    perPlan *
      (plans.length * RUNS * (MEASUREMENTS * DURATION + ROUND_OVERHEAD) + plans.length * 6) +
    45 +
    (BASELINE === undefined ? 0 : BASELINE_BUILD) +
    (baselineNpmCi ? BASELINE_NPM_CI : 0);
  const buildsIncluded =
    BASELINE === undefined ? 'build' : `builds${baselineNpmCi ? ' and npm ci' : ''}`;
  console.log(
    `Measuring ${plans.map(({ platform, database }) => `${platform} on ${database.label}`).join(', ')}` +
      `${BASELINE === undefined ? '' : `, each also on BENCH_BASELINE ${BASELINE} (${baselineCommit.slice(0, 10)})`}: ` +
      `${RUNS} round(s) of ${MEASUREMENTS} runs of ${DURATION} s each; expected duration about ` +
      `${Math.ceil(estimate / 60)} min (${buildsIncluded} included).`,
  );
  console.log('Building…');
  execSync('npm run -s build', { cwd: ROOT, stdio: 'inherit' });
  // Everything starts up front, so each round measures every server within seconds.
  const references = {};
  const services = [];
  // baselines[i]: the baseline build on services[i]'s platform and database.
  const baselines = [];
  let baseline;
  // Ctrl-C skips `finally`: the temporary worktree must not outlive the bench all the same.
  const interrupted = (signal) => {
    baseline?.remove();
    process.exit(signal === 'SIGINT' ? 130 : 143);
  };
  if (BASELINE !== undefined) {
    process.once('SIGINT', interrupted);
    process.once('SIGTERM', interrupted);
  }
  try {
    if (BASELINE !== undefined) baseline = prepareBaseline(BASELINE, baselineCommit);
    references.node = await startReference('ceiling-server.js');
    references.nest = await startReference('nest-minimal.js');
    for (const plan of plans) {
      const database = await plan.database.create();
      services.push({ ...plan, database, server: undefined });
      services[services.length - 1].server = await startService(database, plan.platform);
      if (baseline !== undefined) {
        const other = await plan.database.create();
        baselines.push({ ...plan, database: other, server: undefined, label: 'baseline' });
        baselines[baselines.length - 1].server = await startService(other, plan.platform, baseline);
      }
    }
    const rounds = [];
    const baselineRounds = [];
    for (let round = 1; round <= RUNS; round++) {
      console.log(`Round ${round} of ${RUNS}…`);
      const figures = [];
      const baselineFigures = [];
      for (const [i, service] of services.entries()) {
        if (baseline === undefined) {
          figures.push(await measure(service, references));
          continue;
        }
        // Side by side, first one then the other every other round, so drift favours neither.
        if (round % 2 === 0) baselineFigures.push(await measure(baselines[i], references));
        figures.push(await measure(service, references));
        if (round % 2 === 1) baselineFigures.push(await measure(baselines[i], references));
      }
      rounds.push(figures);
      baselineRounds.push(baselineFigures);
    }
    const rows = services.map(({ platform, database, server }, i) => ({
      platform,
      database: database.label,
      rssMb: server.peakRssMb(),
      ...medianOf(rounds.map((figures) => figures[i])),
      spread: spreadOf(rounds.map((figures) => figures[i])),
    }));
    const comparison =
      baseline === undefined
        ? undefined
        : {
            ref: BASELINE,
            commit: baseline.commit,
            npmCi: baseline.npmCi,
            current: currentCommit(),
            rows: services.map(({ platform, database }, i) =>
              compareRounds(
                platform,
                database.label,
                rounds.map((figures) => figures[i]),
                baselineRounds.map((figures) => figures[i]),
              ),
            ),
          };
    report(rows, medianOf(rounds.flat().map((f) => f.hashBound)), comparison);
    console.log(`Took ${fmt((Date.now() - started) / 60000, 1)} min.`);
  } finally {
    for (const reference of Object.values(references)) reference.stop();
    for (const { database, server } of [...services, ...baselines]) {
      await server?.stop();
      await database.drop();
    }
    baseline?.remove();
  }
}

/**
 * One round's figures for one service. Each is paired with its reference run just before it: the
 * machine's speed drifts within minutes, and a ratio should compare like with like.
 */
async function measure({ platform, server, label }, references) {
  const target = TARGETS[platform].verifyReference;
  const other = target === 'nest' ? 'node' : 'nest';
  const verifyOf = {};
  // The reference the target names runs last, right before the service; the other one before it.
  verifyOf[other] = await verifyRun(references[other]);
  verifyOf[target] = await verifyRun(references[target]);
  const verify = await verifyRun(server);
  const nodeRefresh = await refreshRun(references.node);
  const refresh = await refreshRun(server);
  // Measured next to the logins it judges.
  const hashBound = measureHashBound();
  const login = await loginRate(server);
  const p99Alone = await verifyAtRate(server, PROBE_RATE, DURATION);
  const p99Storm = await stormP99(server);
  for (const [name, run] of [
    ['verify-token', verify],
    ['refresh', refresh],
  ]) {
    if (run.failures > 0) {
      console.log(
        `  ${platform}${label ? ` (${label})` : ''}: ${name} had ${run.failures} failed or non-2xx answers`,
      );
    }
  }
  return {
    nodeVerify: verifyOf.node,
    nestVerify: verifyOf.nest,
    verify,
    nodeRefresh,
    refresh,
    login,
    nodeShare: verify.rps / verifyOf.node.rps,
    nestShare: verify.rps / verifyOf.nest.rps,
    refreshShare: refresh.rps / nodeRefresh.rps,
    hashBound,
    loginShare: login.ok / hashBound.loginsPerSecond,
    p99Alone: p99Alone.p99,
    p99Storm: p99Storm.p99,
    stormFactor: p99Storm.p99 / Math.max(1, p99Alone.p99),
  };
}

/** The figures BENCH_BASELINE compares: throughput, so above 1 the current build is faster. */
const COMPARED = [
  ['verify-token', `verify-token req/s (${CONNECTIONS} connections)`, (f) => f.verify.rps],
  [
    'refresh',
    `refresh req/s (${REFRESH_CONNECTIONS} connections, each rotating its own chain)`,
    (f) => f.refresh.rps,
  ],
  ['login', `login/s at cost ${COST} (${LOGIN_CONNECTIONS} connections)`, (f) => f.login.ok],
];

/** Per figure: both medians, and the median and range of the rounds' current ÷ baseline. */
function compareRounds(platform, database, current, baseline) {
  return COMPARED.map(([short, figure, of]) => {
    const ratios = current.map((f, round) => of(f) / of(baseline[round]));
    return {
      platform,
      database,
      short,
      figure,
      current: median(current.map(of)),
      baseline: median(baseline.map(of)),
      ratio: median(ratios),
      spread: [Math.min(...ratios), Math.max(...ratios)],
    };
  });
}

/** Per ratio, the lowest and highest of the rounds: a change within them is not a measurement. */
function spreadOf(items) {
  const out = {};
  for (const key of ['nodeShare', 'nestShare', 'refreshShare', 'loginShare', 'stormFactor']) {
    const values = items.map((item) => item[key]);
    out[key] = [Math.min(...values), Math.max(...values)];
  }
  return out;
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

/**
 * The databases of BENCH_DATABASES that can be reached, each able to create a fresh, empty
 * database per service (two services never share one).
 */
async function reachableDatabases() {
  const databases = [];
  if (DATABASES.includes('sqlite')) {
    databases.push({
      label: 'SQLite (better-sqlite3)',
      create: async () => {
        const dir = mkdtempSync(join(tmpdir(), 'auth-bench-'));
        return {
          label: 'SQLite (better-sqlite3)',
          env: { DATABASE_URL: `sqlite:${join(dir, 'auth.sqlite')}` },
          drop: async () => rmSync(dir, { recursive: true, force: true }),
        };
      },
    });
  }
  if (DATABASES.includes('mariadb')) {
    const server = (process.env.BENCH_MYSQL_URL || 'mysql://root@127.0.0.1:3306').replace(
      /\/$/,
      '',
    );
    const mysql = require('mysql2/promise');
    const admin = (statement) =>
      mysql.createConnection({ uri: server, connectTimeout: 3000 }).then(async (connection) => {
        try {
          await connection.query(statement);
        } finally {
          await connection.end();
        }
      });
    try {
      await admin('SELECT 1');
      databases.push({
        label: 'MariaDB',
        create: async () => {
          const name = `auth_bench_${randomBytes(4).toString('hex')}`;
          await admin(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4`);
          return {
            label: 'MariaDB',
            env: { DATABASE_URL: `${server}/${name}` },
            drop: () => admin(`DROP DATABASE IF EXISTS \`${name}\``),
          };
        },
      });
    } catch (error) {
      console.log(
        `MariaDB not reachable at ${server} (${error.code || error.message}): not measured.`,
      );
    }
  }
  if (databases.length === 0) throw new Error('No database to measure on.');
  return databases;
}

/** A reference server from this folder, on a free loopback port, handing out sessions. */
async function startReference(file) {
  const child = fork(join(__dirname, file), {
    env: { ...process.env, NODE_ENV: 'production', PORT: '0' },
  });
  const { port } = await new Promise((resolve, reject) => {
    child.once('message', resolve);
    child.once('exit', (code) => reject(new Error(`${file} exited with ${code}`)));
  });
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

/** This checkout's build, or with `baseline` (from prepareBaseline) that commit's. */
async function startService(database, platform, baseline) {
  const service = await startBuiltService({
    name: baseline === undefined ? 'bench' : 'bench-baseline',
    env: () => ({
      BCRYPT_COST: String(COST),
      HTTP_PLATFORM: platform,
      ...database.env,
      ...(baseline === undefined ? {} : BASELINE_ENV),
    }),
    ...(baseline === undefined ? {} : { main: baseline.main, nodeFlags: baseline.nodeFlags }),
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

const fmt = (n, digits = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
/** One decimal, rounded down, so a ratio just under its target never prints as the target. */
const pct = (share) => `${fmt(Math.floor(1000 * share) / 10, 1)} %`;
/** Targets are whole percentages. */
const targetPct = (share) => `${fmt(100 * share)} %`;

/** `low–high` of a spread, each formatted as its ratio is. */
const range = ([low, high], format) => `${format(low)}–${format(high)}`;

/** The rows of one service: figure, reference, ratio, target and whether it is met. */
function targetRows(s) {
  const targets = TARGETS[s.platform];
  const verifyRow = (reference, share, target) => ({
    figure: `verify-token req/s (${CONNECTIONS} connections)`,
    short: 'verify-token',
    value: fmt(s.verify.rps),
    reference: `${fmt(s[`${reference}Verify`].rps)}, ${REFERENCES[reference]}`,
    ratio: pct(share),
    rounds: range(s.spread[`${reference}Share`], pct),
    target: target === undefined ? '(for information)' : `≥ ${targetPct(target)}`,
    met: target === undefined ? undefined : share >= target,
  });
  const other = targets.verifyReference === 'nest' ? 'node' : 'nest';
  return [
    verifyRow(targets.verifyReference, s[`${targets.verifyReference}Share`], targets.verify),
    verifyRow(other, s[`${other}Share`], undefined),
    {
      figure: `refresh req/s (${REFRESH_CONNECTIONS} connections, each rotating its own chain)`,
      short: 'refresh',
      value: fmt(s.refresh.rps),
      reference: `${fmt(s.nodeRefresh.rps)}, ${REFERENCES.node}`,
      ratio: pct(s.refreshShare),
      rounds: range(s.spread.refreshShare, pct),
      target: `≥ ${targetPct(targets.refresh)}`,
      met: s.refreshShare >= targets.refresh,
    },
    {
      figure: `login/s at cost ${COST} (${LOGIN_CONNECTIONS} connections)`,
      short: 'login',
      value: fmt(s.login.ok, 1),
      reference: `${fmt(s.hashBound.loginsPerSecond, 1)}, hash bound`,
      ratio: pct(s.loginShare),
      rounds: range(s.spread.loginShare, pct),
      target: `≥ ${targetPct(LOGIN_TARGET)}`,
      met: s.loginShare >= LOGIN_TARGET,
    },
    {
      figure: `verify-token p99 at ${PROBE_RATE} req/s during a login storm (ms)`,
      short: 'storm p99',
      value: fmt(s.p99Storm),
      reference: `${fmt(s.p99Alone)}, the same alone`,
      ratio: `×${fmt(s.stormFactor, 1)}`,
      rounds: range(s.spread.stormFactor, (n) => `×${fmt(n, 1)}`),
      target: `≤ ×${STORM_TARGET}`,
      met: s.stormFactor <= STORM_TARGET,
    },
    {
      figure: 'peak RSS (MB)',
      short: 'peak RSS',
      value: fmt(s.rssMb),
      reference: '',
      ratio: '',
      rounds: '',
      target: `< ${RSS_TARGET_MB}`,
      met: s.rssMb < RSS_TARGET_MB,
    },
  ];
}

/** BENCH_BASELINE's table: this build's figures over the baseline's, per platform and database. */
function comparisonTable({ ref, commit, current, rows }) {
  const lines = [
    `**current / baseline**: this checkout (\`${current.commit.slice(0, 10)}\`` +
      `${current.changed ? ' with uncommitted changes in src/' : ''}) over \`BENCH_BASELINE=${ref}\` ` +
      `(\`${commit.slice(0, 10)}\`); above 1 the current build is faster.`,
    '',
    '| platform | database | figure | current | baseline | current / baseline | rounds |',
    '|---|---|---|---|---|---|---|',
  ];
  for (const row of rows.flat()) {
    const digits = row.short === 'login' ? 1 : 0;
    lines.push(
      `| ${row.platform} | ${row.database} | ${row.figure} | ${fmt(row.current, digits)} | ` +
        `${fmt(row.baseline, digits)} | ${fmt(row.ratio, 2)} | ${range(row.spread, (n) => fmt(n, 2))} |`,
    );
  }
  return lines.join('\n');
}

/** How the baseline was built and run, for the conditions under the tables. */
function baselineConditions({ ref, commit, npmCi }) {
  const modules = npmCi
    ? '`npm ci`, its package-lock.json naming packages this checkout lacks'
    : "hard links of this checkout's, which has every package its package-lock.json names";
  const env = Object.entries(BASELINE_ENV)
    .map(([name, value]) => `${name}=${value}`)
    .join(' ');
  return (
    `- Baseline: \`BENCH_BASELINE=${ref}\`, commit \`${commit}\`, built by its own build script in a temporary git worktree (node_modules: ${modules}); ` +
    `started as the service is, with its own \`start:prod\` flags, \`${env}\` (the current production default) and a fresh database of its own. ` +
    'In each round it runs the same eight loads just after the current build on the same platform and database, or just before it every other round; ' +
    '"current / baseline" is the median of the per-round ratios of the absolute figures, "rounds" their lowest and highest.'
  );
}

function report(services, hashBound, comparison) {
  const lines = [
    '| platform | database | figure | service | reference | ratio | rounds | target | result |',
    '|---|---|---|---|---|---|---|---|---|',
  ];
  const missed = [];
  for (const s of services) {
    for (const row of targetRows(s)) {
      const result = row.met === undefined ? '' : row.met ? 'met' : '**missed**';
      if (row.met === false)
        missed.push(`${s.platform}/${s.database} ${row.short} ${row.ratio || row.value}`);
      lines.push(
        `| ${s.platform} | ${s.database} | ${row.figure} | ${row.value} | ${row.reference} | ` +
          `${row.ratio} | ${row.rounds} | ${row.target} | ${result} |`,
      );
    }
  }
  const table = lines.join('\n');
  console.log(`\n${table}\n`);
  const compared = comparison === undefined ? '' : `${comparisonTable(comparison)}\n\n`;
  if (compared) console.log(compared);
  const trial = DURATION < 5 || RUNS < 3;
  const conditions = [
    ...(trial
      ? [
          `- **A trial of the script, not a measurement**: ${RUNS} round(s) of ${DURATION} s (a measurement is at least 3 rounds of 5 s).`,
        ]
      : []),
    `- Machine: ${cpus()[0].model}, ${availableParallelism()} cores, ${fmt(totalmem() / 2 ** 30, 1)} GiB; ${process.platform} ${process.arch}.`,
    `- Node ${process.version}; NestJS ${version('@nestjs/core')}, @nestjs/platform-express ${version('@nestjs/platform-express')}, Express ${version('express')}, @nestjs/platform-fastify ${version('@nestjs/platform-fastify')}, Fastify ${version('fastify')}, @nestjs/jwt ${version('@nestjs/jwt')}, jsonwebtoken ${version('jsonwebtoken')}, TypeORM ${version('typeorm')}, mysql2 ${version('mysql2')}, better-sqlite3 ${version('better-sqlite3')}, bcryptjs ${version('bcryptjs')}, autocannon ${version('autocannon')}.`,
    `- ${RUNS} round(s) of ${DURATION} s per figure; each figure is paired with its reference run just before it, and each ratio is the median of the per-round ratios (absolute figures: medians too; "rounds" gives the lowest and highest per-round ratio). Load generator: autocannon on the same machine, over loopback.`,
    `- Service: \`HTTP_PLATFORM=<platform> node ${[...NODE_FLAGS, 'dist/main.js'].join(' ')}\` as \`npm run start:prod\` runs it, \`NODE_ENV=production\`, \`BCRYPT_COST=${COST}\`, rate limits raised to 10⁷, default pool sizes, a fresh database per service. One bcrypt comparison costs ${fmt(hashBound.compareMs, 1)} ms of CPU here (median), so the hash bound is ${availableParallelism()} cores ÷ that = ${fmt(hashBound.loginsPerSecond, 1)} logins/s; it is measured again before each login run, and each login ratio uses the one next to it.`,
    `- References: \`node scripts/bench/ceiling-server.js\` and \`node scripts/bench/nest-minimal.js\`, \`NODE_ENV=production\`. On Express, verify-token runs after the node:http ceiling and the minimal Nest app, in that order; on Fastify after the minimal Nest app and the node:http ceiling. The "for information" row's reference ran two runs before the service's.`,
    `- Login storm: ${LOGIN_CONNECTIONS} connections logging in back to back while verify-token is probed at a fixed ${PROBE_RATE} req/s.`,
    ...(comparison === undefined ? [] : [baselineConditions(comparison)]),
    `- Targets: ${missed.length === 0 ? 'every one met' : `${missed.length} missed (${missed.join('; ')})`}.`,
    `- Run at ${new Date().toISOString()}.`,
  ].join('\n');
  const docs = join(ROOT, 'docs');
  mkdirSync(docs, { recursive: true });
  const file = join(docs, 'performance.md');
  const existing = safeRead(file);
  const marker = '<!-- bench:start -->';
  const end = '<!-- bench:end -->';
  const block = `${marker}\n${table}\n\n${compared}${conditions}\n${end}`;
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
