'use strict';
// npm run bench:scale: the service on databases of growing size (scripts/bench/seed.js), each
// figure beside the same service on a 1k-user database loaded right before or after it, on the
// embedded store and on MariaDB. See docs/performance.md, "The embedded store at scale".
// SCALE_SIZES (comma-separated user counts, `k` and `M` allowed; default 1k,250k,1M),
// SCALE_DATABASES (default sqlite,mariadb), SCALE_DURATION (seconds per load run, default 6),
// SCALE_RUNS (rounds, default 3; the median is kept), SCALE_MYSQL_URL (default
// BENCH_MYSQL_URL or mysql://root@127.0.0.1:3306; unreachable: the MariaDB part is skipped),
// SCALE_MERGE=1 (keep the sizes this run does not measure from the table already written).
const { execSync } = require('node:child_process');
const { randomBytes, randomUUID } = require('node:crypto');
const { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } = require('node:fs');
const { availableParallelism, cpus, loadavg, tmpdir, totalmem } = require('node:os');
const http = require('node:http');
const { join } = require('node:path');
const jwt = require('jsonwebtoken');
const { followRefreshChain, jsonPost, postEach, runAutocannon } = require('./load');
const { paced, pacedRefresh } = require('./paced');
const { probeAtRate } = require('./probe');
const { listingFigures, purgeFigures } = require('./scale-background');
const { SEED_PASSWORD, parseUsers, seedDatabase } = require('./seed');
const { NODE_FLAGS, ROOT, startBuiltService } = require('./service');

const SIZES = sizes(process.env.SCALE_SIZES || '1k,250k,1M');
const DATABASES = choice('SCALE_DATABASES', ['sqlite', 'mariadb']);
const DURATION = Number(process.env.SCALE_DURATION || 6);
const RUNS = Number(process.env.SCALE_RUNS || 3);
const MYSQL_SERVER = (
  process.env.SCALE_MYSQL_URL ||
  process.env.BENCH_MYSQL_URL ||
  'mysql://root@127.0.0.1:3306'
).replace(/\/$/, '');
const COST = 10;
/** The size every figure is compared with. */
const REFERENCE_USERS = 1000;
/**
 * Users whose tokens and logins the load spreads over, the same count at every size: the user
 * cache (USER_CACHE_TTL) then serves the same share of token checks everywhere, and the ratio
 * shows what the database's size costs the checks that read it. A 1k database has about half
 * as many live sessions as users.
 */
const ACTIVE_USERS = 400;
const CONNECTIONS = 50;
const REFRESH_CONNECTIONS = 20;
const HASH_CONNECTIONS = 16;
/** The steady write load: half registrations, half refreshes. */
const WRITE_RATE = 20;
const PROBE_RATE = 100;
/** The pause after each load run. */
const SETTLE_MS = 1000;
/** Starts per service and size, alternating with the other service; the median is kept. */
const STARTS = 3;
/** Figures a database of 1M users on the embedded store must reach (issue 23 item 3). */
const TARGETS = { rssMb: 300, healthP99Ms: 50, throughputShare: 0.8 };

/** `1k,250k,1M` → [1000, 250000, 1000000]. */
function sizes(value) {
  return value.split(',').map((item) => {
    const users = parseUsers(item);
    if (!(users > 0))
      throw new Error(`SCALE_SIZES: ${item} is not a count of users (1000, 250k, 1M)`);
    return users;
  });
}

/** A comma-separated subset of `all` from the environment; all of them by default. */
function choice(name, all) {
  const value = process.env[name];
  if (!value) return all;
  const picked = value
    .split(',')
    .map((item) => item.trim().toLowerCase())
    .filter(Boolean);
  if (picked.length === 0 || picked.some((item) => !all.includes(item))) {
    throw new Error(`${name}: expected a comma-separated subset of ${all.join(', ')}`);
  }
  return all.filter((item) => picked.includes(item));
}

/** What a size has started, stopped however the run ends (an error, Ctrl-C). */
const cleanups = new Set();
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, async () => {
    console.error(`\n${signal}: stopping the services and dropping the databases`);
    for (const cleanup of cleanups) await cleanup().catch(() => {});
    process.exit(1);
  });
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function main() {
  const started = Date.now();
  const stores = await reachableStores();
  const configurations = stores.flatMap((store) => SIZES.map((users) => ({ store, users })));
  // The long jobs (listing, a restart and the purge): about a minute per pair.
  const measuring = RUNS * (12 * (DURATION + SETTLE_MS / 1000) + 10) + 2 * STARTS * 3 + 80;
  const seeding = stores.reduce(
    (sum, store) => sum + SIZES.reduce((s, users) => s + users * store.seedSecondsPerUser, 0),
    0,
  );
  console.log(
    `Measuring ${stores.map((store) => store.label).join(' and ')} at ${SIZES.map(count).join(', ')} ` +
      `users: ${RUNS} round(s) of 12 load runs of ${DURATION} s each per size; expected duration ` +
      `about ${Math.ceil((configurations.length * measuring + seeding + 45) / 60)} min (seeding and build included).`,
  );
  console.log('Building…');
  execSync('npm run -s build', { cwd: ROOT, stdio: 'inherit' });
  const results = [];
  for (const { store, users } of configurations) {
    console.log(`\n${store.label}, ${count(users)} users:`);
    results.push({ store: store.key, users, ...(await measureSize(store, users)) });
  }
  const versions = await storeVersions(stores);
  report(results, versions, (Date.now() - started) / 60000);
}

/**
 * One size on one store: a database of `users` and one of REFERENCE_USERS, both seeded afresh,
 * each figure of the large one paired with the reference's run just before it.
 */
async function measureSize(store, users) {
  const load = [loadavg()[0]];
  const databases = [];
  const services = [];
  const cleanup = async () => {
    for (const service of services) await service.stop();
    for (const database of databases) await database.drop();
  };
  cleanups.add(cleanup);
  try {
    const reference = await store.create();
    databases.push(reference);
    const target = await store.create();
    databases.push(target);
    const seeded = {};
    for (const [name, database, size] of [
      ['reference', reference, REFERENCE_USERS],
      ['target', target, users],
    ]) {
      const t = await seedDatabase({
        url: database.url,
        users: size,
        sample: ACTIVE_USERS,
        cost: COST,
      });
      seeded[name] = { ...t, sizeMb: await database.sizeMb() };
      console.log(
        `  seeded ${count(size)} users in ${t.seconds.toFixed(0)} s (${fmt(seeded[name].sizeMb)} MB; ` +
          `${t.counts.refresh_sessions} sessions, ${t.counts.audit_events} audit events)`,
      );
    }
    const startups = { reference: [], target: [] };
    const running = {};
    for (let i = 0; i < STARTS; i++) {
      for (const [name, database] of [
        ['reference', reference],
        ['target', target],
      ]) {
        if (running[name]) await running[name].stop();
        running[name] = await startService(database);
        // Stopping twice is harmless: cleanup stops every one started.
        services.push(running[name]);
        startups[name].push(running[name].startupMs);
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const idleRss = { reference: running.reference.rssMb(), target: running.target.rssMb() };
    const active = Math.min(
      seeded.reference.sample.sessions.length,
      seeded.target.sample.sessions.length,
    );
    const pair = {
      reference: await prepare(running.reference, seeded.reference.sample, active),
      target: await prepare(running.target, seeded.target.sample, active),
    };
    for (const service of Object.values(pair)) {
      await verifyRun(service, 2);
      service.resetPeakRss();
    }
    const rounds = [];
    for (let round = 1; round <= RUNS; round++) {
      const figures = await measureRound(pair, round);
      rounds.push(figures);
      console.log(`  round ${round}: ${summary(figures)}`);
    }
    // Before the long jobs, which restart the services.
    const peakRss = { reference: pair.reference.peakRssMb(), target: pair.target.peakRssMb() };
    const background = { reference: {}, target: {} };
    for (const [name, database, size] of [
      ['reference', reference, REFERENCE_USERS],
      ['target', target, users],
    ]) {
      Object.assign(background[name], await listingFigures(running[name], database.url, size));
      const purge = await purgeFigures({
        store: store.key,
        databaseUrl: database.url,
        users: size,
        userIds: seeded[name].sample.sessions.map((session) => session.userId),
        restart: async (meanwhile) => {
          await running[name].stop();
          await meanwhile();
          running[name] = await startService(database);
          services.push(running[name]);
          return running[name];
        },
      });
      Object.assign(background[name], purge);
    }
    console.log(`  long jobs: ${summary(pairUp(background))}`);
    load.push(loadavg()[0]);
    const figures = {};
    for (const key of Object.keys(rounds[0])) {
      figures[key] = {
        reference: median(rounds.map((r) => r[key].reference)),
        target: median(rounds.map((r) => r[key].target)),
        ratio: median(rounds.map((r) => r[key].target / r[key].reference)),
        ratios: rounds.map((r) => r[key].target / r[key].reference),
      };
    }
    const figure = (reference, target) => ({ reference, target, ratio: target / reference });
    figures.startupMs = figure(median(startups.reference), median(startups.target));
    figures.idleRssMb = figure(idleRss.reference, idleRss.target);
    figures.peakRssMb = figure(peakRss.reference, peakRss.target);
    figures.sizeMb = figure(seeded.reference.sizeMb, seeded.target.sizeMb);
    for (const [key, { reference: r, target: t }] of Object.entries(pairUp(background))) {
      figures[key] = figure(r, t);
    }
    return {
      figures,
      runs: RUNS,
      duration: DURATION,
      at: new Date().toISOString(),
      seedSeconds: seeded.target.seconds,
      counts: seeded.target.counts,
      active,
      load,
    };
  } finally {
    cleanups.delete(cleanup);
    await cleanup();
  }
}

/**
 * Every load of one round, on both services one after the other: the reference first in odd
 * rounds, the large database first in even ones, so that neither gains from going first. Each
 * run is followed by a pause, in which the service finishes what the load left queued (hashes).
 */
async function measureRound(pair, round) {
  const figures = {};
  const both = async (run, pick) => {
    const measure = async (service) => {
      const result = await run(service);
      await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
      return result;
    };
    let reference;
    let target;
    if (round % 2 === 1) {
      reference = await measure(pair.reference);
      target = await measure(pair.target);
    } else {
      target = await measure(pair.target);
      reference = await measure(pair.reference);
    }
    for (const [key, read] of Object.entries(pick)) {
      figures[key] = { reference: read(reference), target: read(target) };
    }
  };
  await both((s) => verifyRun(s, DURATION), { verifyRps: (r) => r.rps, verifyP99: (r) => r.p99 });
  await both(refreshRun, { refreshRps: (r) => r.rps, refreshP99: (r) => r.p99 });
  await both(loginRun, { loginRps: (r) => r.rps, loginP99: (r) => r.p99 });
  await both(registerRun, { registerRps: (r) => r.rps, registerP99: (r) => r.p99 });
  await both((s) => healthDuringWrites(s, WRITE_RATE), {
    steadyHealthP99: (r) => r.health.p99,
  });
  await both((s) => healthDuringWrites(s, undefined), {
    busyHealthP99: (r) => r.health.p99,
    busyWrites: (r) => r.writes,
  });
  return figures;
}

/** `{ reference: {a: 1}, target: {a: 2} }` → `{ a: { reference: 1, target: 2 } }`. */
function pairUp({ reference, target }) {
  return Object.fromEntries(
    Object.keys(target).map((key) => [key, { reference: reference[key], target: target[key] }]),
  );
}

function summary(figures) {
  return Object.entries(figures)
    .map(([key, { reference, target }]) => `${key} ${fmt(target, 1)}/${fmt(reference, 1)}`)
    .join(', ');
}

/** The built service on `database`, as `npm run start:prod` runs it, with known secrets. */
async function startService(database) {
  const secrets = {
    JWT_ACCESS_SECRET: randomBytes(32).toString('hex'),
    JWT_REFRESH_SECRET: randomBytes(32).toString('hex'),
  };
  const service = await startBuiltService({
    name: 'scale',
    healthPollMs: 10,
    env: () => ({ BCRYPT_COST: String(COST), DATABASE_URL: database.url, ...secrets }),
  });
  return { ...service, secrets };
}

/**
 * What the loads need from a running service: a fresh access token for `active` of its seeded
 * sessions (signed as the service signs them, after a real one from a login; checked by the
 * service before use), the emails of `active` seeded users, and a way to reset its peak RSS.
 */
async function prepare(service, sample, active) {
  const emails = sample.emails.slice(0, active);
  const real = await login(service, emails[0]);
  const { header, payload: template } = jwt.decode(real.access, { complete: true });
  const mint = (session) =>
    jwt.sign(
      {
        ...template,
        sub: session.userId,
        sid: session.sessionId,
        ver: session.version,
        role: session.role,
        jti: randomUUID(),
        iat: Math.floor(Date.now() / 1000),
        exp: Math.floor(Date.now() / 1000) + (template.exp - template.iat),
      },
      service.secrets.JWT_ACCESS_SECRET,
      { header },
    );
  const sessions = sample.sessions.slice(0, active);
  const prepared = {
    ...service,
    emails,
    accessTokens: () => sessions.map(mint),
    resetPeakRss: () => writeFileSync(`/proc/${service.child.pid}/clear_refs`, '5'),
  };
  for (const token of prepared.accessTokens().slice(0, 3)) {
    const status = await new Promise((resolve, reject) => {
      http
        .get(
          `${service.url}/api/v1/auth/verify-token`,
          { headers: { authorization: `Bearer ${token}` } },
          (res) => {
            res.resume();
            resolve(res.statusCode);
          },
        )
        .on('error', reject);
    });
    if (status !== 200) throw new Error(`a seeded session's token was refused: ${status}`);
  }
  return prepared;
}

function login(service, email) {
  return jsonPost(
    `${service.url}/api/v1/auth/login`,
    { email, password: SEED_PASSWORD },
    { 'x-token-delivery': 'body' },
  ).then((body) => ({ access: body.access_token, refresh: body.refresh_token }));
}

/** Refresh tokens of fresh logins of `n` of the active users, each the start of a chain. */
async function refreshChains(service, n) {
  const offset = Math.floor(Math.random() * service.emails.length);
  const emails = Array.from(
    { length: n },
    (_, i) => service.emails[(offset + i) % service.emails.length],
  );
  return (await Promise.all(emails.map((email) => login(service, email)))).map((t) => t.refresh);
}

/** verify-token with the tokens of the active users, one after the other on each connection. */
function verifyRun(service, duration) {
  const tokens = service.accessTokens();
  let next = Math.floor(Math.random() * tokens.length);
  return runAutocannon({
    url: `${service.url}/api/v1/auth/verify-token`,
    connections: CONNECTIONS,
    duration,
    requests: [
      {
        setupRequest: (request) => ({
          ...request,
          headers: {
            ...request.headers,
            authorization: `Bearer ${tokens[next++ % tokens.length]}`,
          },
        }),
      },
    ],
  });
}

/** Refreshes back to back, each connection rotating its own chain. */
async function refreshRun(service, { tokens: chains } = {}) {
  const tokens = chains ?? (await refreshChains(service, REFRESH_CONNECTIONS));
  return runAutocannon({
    url: `${service.url}/api/v1/auth/refresh`,
    method: 'POST',
    connections: REFRESH_CONNECTIONS,
    duration: DURATION,
    setupClient: followRefreshChain(() => tokens.pop()),
  });
}

/** Logins of the active users in turn, at the service's bcrypt cost. */
function loginRun(service) {
  let next = 0;
  return postEach({
    url: `${service.url}/api/v1/auth/login`,
    connections: HASH_CONNECTIONS,
    duration: DURATION,
    headers: { 'x-token-delivery': 'body' },
    nextBody: () => ({
      email: service.emails[next++ % service.emails.length],
      password: SEED_PASSWORD,
    }),
  });
}

/** The body of a new registration at each call: its own email and username. */
function registration() {
  const tag = randomBytes(3).toString('hex');
  let next = 0;
  return () => {
    const id = `${tag}${(next++).toString(36)}`;
    return {
      path: '/api/v1/auth/register',
      body: { email: `scale-${id}@example.com`, username: `scale_${id}`, password: SEED_PASSWORD },
    };
  };
}

/** Registrations of new users, back to back on each connection. */
function registerRun(service) {
  const next = registration();
  return postEach({
    url: `${service.url}/api/v1/auth/register`,
    connections: HASH_CONNECTIONS,
    duration: DURATION,
    nextBody: () => next().body,
  });
}

/**
 * The health route's latency, probed at PROBE_RATE from a worker thread, while registrations and
 * refreshes run: `rate` writes/s in all (half each, evenly paced), or as fast as their
 * connections go.
 */
async function healthDuringWrites(service, rate) {
  const tokens = await refreshChains(service, rate ? 4 : REFRESH_CONNECTIONS);
  // Within the loads' run: it starts as they do, and ends before they end.
  const health = probeAtRate(`${service.url}/api/v1/health`, PROBE_RATE, DURATION - 1, 500);
  const writes = rate
    ? [
        paced({
          url: service.url,
          rate: rate / 2,
          seconds: DURATION,
          next: registration(),
        }),
        pacedRefresh({ url: service.url, rate: rate / 2, seconds: DURATION, tokens }),
      ]
    : [registerRun(service), refreshRun(service, { tokens })];
  const [probe, register, refresh] = await Promise.all([health, ...writes]);
  return { health: probe, writes: register.rps + refresh.rps };
}

/** The stores of SCALE_DATABASES that can be reached, each making fresh databases. */
async function reachableStores() {
  const stores = [];
  if (DATABASES.includes('sqlite')) {
    stores.push({
      key: 'sqlite',
      label: 'the embedded store (SQLite)',
      seedSecondsPerUser: 140e-6,
      create: async () => {
        const dir = mkdtempSync(join(tmpdir(), 'auth-scale-'));
        const file = join(dir, 'auth.sqlite');
        return {
          url: `sqlite:${file}`,
          sizeMb: async () => statSync(file).size / 2 ** 20,
          drop: async () => rmSync(dir, { recursive: true, force: true }),
        };
      },
    });
  }
  if (DATABASES.includes('mariadb')) {
    try {
      await mysqlAdmin('SELECT 1');
      stores.push({
        key: 'mariadb',
        label: 'MariaDB',
        seedSecondsPerUser: 90e-6,
        create: async () => {
          const name = `auth_scale_${randomBytes(4).toString('hex')}`;
          await mysqlAdmin(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4`);
          return {
            url: `${MYSQL_SERVER}/${name}`,
            sizeMb: async () => {
              // The statistics InnoDB keeps are estimates until the tables are analysed.
              await mysqlAdmin(
                `ANALYZE TABLE ${['users', 'refresh_sessions', 'verification_tokens', 'audit_events'].map((t) => `\`${name}\`.${t}`).join(', ')}`,
              );
              const [row] = await mysqlAdmin(
                'SELECT SUM(data_length + index_length) AS bytes FROM information_schema.tables WHERE table_schema = ?',
                [name],
              );
              return Number(row.bytes) / 2 ** 20;
            },
            drop: () => mysqlAdmin(`DROP DATABASE IF EXISTS \`${name}\``),
          };
        },
      });
    } catch (error) {
      console.log(
        `MariaDB not reachable at ${MYSQL_SERVER} (${error.code || error.message}): not measured.`,
      );
    }
  }
  if (stores.length === 0) throw new Error('No database to measure on.');
  return stores;
}

async function mysqlAdmin(statement, parameters = []) {
  const mysql = require('mysql2/promise');
  const connection = await mysql.createConnection({ uri: MYSQL_SERVER, connectTimeout: 3000 });
  try {
    const [rows] = await connection.query(statement, parameters);
    return rows;
  } finally {
    await connection.end();
  }
}

/** The database engines' versions and the settings that decide their speed, for the conditions. */
async function storeVersions(stores) {
  const versions = {};
  if (stores.some((store) => store.key === 'sqlite')) {
    const Database = require('better-sqlite3');
    const db = new Database(':memory:');
    versions.sqlite = `better-sqlite3 ${version('better-sqlite3')} (SQLite ${db.prepare('SELECT sqlite_version() AS v').get().v})`;
    db.close();
  }
  if (stores.some((store) => store.key === 'mariadb')) {
    const [row] = await mysqlAdmin(
      'SELECT VERSION() AS version, @@innodb_buffer_pool_size AS pool, @@innodb_flush_log_at_trx_commit AS flush',
    );
    versions.mariadb = `MariaDB ${row.version} (innodb_buffer_pool_size ${fmt(Number(row.pool) / 2 ** 20)} MB, innodb_flush_log_at_trx_commit=${row.flush}), mysql2 ${version('mysql2')}`;
  }
  return versions;
}

const fmt = (n, digits = 0) =>
  !Number.isFinite(n)
    ? '–'
    : n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const count = (n) =>
  n >= 1e6 && n % 1e5 === 0 ? `${n / 1e6}M` : n >= 1e3 && n % 100 === 0 ? `${n / 1e3}k` : String(n);

/** What each figure is, how it is printed, and which way is better. */
const FIGURES = [
  ['sizeMb', 'database on disk (MB)', 0, 'factor'],
  ['startupMs', 'start-up: spawn → health answers (ms)', 0, 'factor'],
  ['idleRssMb', 'RSS idle after start (MB)', 0, 'factor'],
  ['peakRssMb', 'peak RSS during the loads (MB)', 0, 'factor'],
  ['verifyRps', `verify-token req/s (${CONNECTIONS} connections)`, 0, 'share'],
  ['verifyP99', 'verify-token p99 (ms)', 0, 'factor'],
  ['refreshRps', `refresh req/s (${REFRESH_CONNECTIONS} connections)`, 0, 'share'],
  ['refreshP99', 'refresh p99 (ms)', 0, 'factor'],
  ['loginRps', `login/s (${HASH_CONNECTIONS} connections, cost ${COST})`, 1, 'share'],
  ['loginP99', 'login p99 (ms)', 0, 'factor'],
  ['registerRps', `register/s (${HASH_CONNECTIONS} connections, cost ${COST})`, 1, 'share'],
  ['registerP99', 'register p99 (ms)', 0, 'factor'],
  ['steadyHealthP99', `health p99 during ${WRITE_RATE} writes/s (ms)`, 1, 'factor'],
  ['busyHealthP99', 'health p99 during saturating writes (ms)', 1, 'factor'],
  ['busyWrites', 'writes/s answered in that saturating load', 0, 'share'],
  ['listFirstMs', 'admin listing: first page of 20 (ms)', 1, 'factor'],
  ['listDeepMs', 'admin listing: a page of 100 in the middle, by `page` (ms)', 1, 'factor'],
  ['listCursorMs', 'admin listing: the page after it, by `cursor` (ms)', 1, 'factor'],
  ['listSearchMs', 'admin listing: search `ab` (prefix, 20 a page) (ms)', 1, 'factor'],
  ['listingHealthP99', 'health p99 while the administrator pages and searches (ms)', 1, 'factor'],
  ['listingHealthMax', 'health: longest wait meanwhile (ms)', 1, 'factor'],
  ['backlog', 'retired sessions left for the janitor after a restart', 0, 'factor'],
  ['purgeSeconds', 'their purge, from the first batch to the last (s)', 1, 'factor'],
  ['purgeHealthP99', 'health p99 during the purge (ms)', 1, 'factor'],
  ['purgeHealthMax', 'health: longest wait during the purge (ms)', 1, 'factor'],
  ['purgeHealthFailures', 'health probes unanswered during the purge', 0, 'factor'],
];

const DOCS = join(ROOT, 'docs', 'performance.md');
const MARKER = '<!-- scale:start -->';
const END = '<!-- scale:end -->';

/**
 * The results a previous run left in the docs (a comment in the block it wrote), so that
 * SCALE_MERGE=1 can measure again only the sizes that were disturbed and keep the others.
 */
function savedResults(text) {
  const match = /<!-- scale:data (.*) -->/.exec(text);
  return match ? JSON.parse(match[1]) : [];
}

function report(current, versions, minutes) {
  const existing = readFileSync(DOCS, 'utf8');
  const kept = process.env.SCALE_MERGE
    ? savedResults(existing).filter(
        (saved) => !current.some((r) => r.store === saved.store && r.users === saved.users),
      )
    : [];
  const order = ['sqlite', 'mariadb'];
  const results = [...kept, ...current].sort(
    (a, b) => order.indexOf(a.store) - order.indexOf(b.store) || a.users - b.users,
  );
  const stores = order.filter((key) => results.some((r) => r.store === key));
  const sizes = [...new Set(results.map((r) => r.users))].sort((a, b) => a - b);
  const label = { sqlite: 'embedded store', mariadb: 'MariaDB' };
  const header = stores.flatMap((key) => [label[key], '1k beside it', 'ratio (rounds)']);
  const lines = [
    `| figure | users | ${header.join(' | ')} |`,
    `|---|---|${header.map(() => '---').join('|')}|`,
  ];
  const share = (ratio) => fmt(Math.floor(1000 * ratio) / 10, 1);
  for (const [key, name, digits, kind] of FIGURES) {
    for (const users of sizes) {
      const cells = stores.flatMap((store) => {
        const result = results.find((r) => r.store === store && r.users === users);
        if (!result) return ['–', '–', '–'];
        const f = result.figures[key];
        // Kept from a run before the figure was measured.
        if (!f) return ['–', '–', '–'];
        const low = f.ratios ? Math.min(...f.ratios) : undefined;
        const high = f.ratios ? Math.max(...f.ratios) : undefined;
        const ratio =
          kind === 'share'
            ? `${share(f.ratio)} %${f.ratios ? ` (${share(low)}–${share(high)})` : ''}`
            : `×${fmt(f.ratio, 2)}${f.ratios ? ` (${fmt(low, 2)}–${fmt(high, 2)})` : ''}`;
        return [fmt(f.target, digits), fmt(f.reference, digits), ratio];
      });
      lines.push(`| ${name} | ${count(users)} | ${cells.join(' | ')} |`);
    }
  }
  const table = lines.join('\n');
  const targets = judge(results);
  const largest = Math.max(...sizes);
  const conditions = [
    ...(results.some((r) => r.duration < 5 || r.runs < 3)
      ? [
          '- **Holds a trial of the script, not a measurement**: fewer than 3 rounds of 5 s for some sizes (below).',
        ]
      : []),
    `- Machine: ${cpus()[0].model}, ${availableParallelism()} cores, ${fmt(totalmem() / 2 ** 30, 1)} GiB; ${process.platform} ${process.arch}, shared with other work. Per size: rounds × seconds per load run, load average (1 min) at its start and end, when it ended: ${results.map((r) => `${label[r.store]} ${count(r.users)}: ${r.runs} × ${r.duration} s, ${r.load.map((l) => fmt(l, 1)).join(' → ')}, ${r.at.slice(0, 16).replace('T', ' ')} UTC`).join('; ')}.`,
    `- Node ${process.version}; NestJS ${version('@nestjs/core')}, Express ${version('express')}, TypeORM ${version('typeorm')}, ${Object.values(versions).join(', ')}, bcryptjs ${version('bcryptjs')}, autocannon ${version('autocannon')}.`,
    `- Service: \`node ${[...NODE_FLAGS, 'dist/main.js'].join(' ')}\` as \`npm run start:prod\` runs it, Express, \`NODE_ENV=production\`, \`BCRYPT_COST=${COST}\`, rate limits raised to 10⁷, every other setting its default. Two services per size, each on a database seeded for it: the size measured and ${count(REFERENCE_USERS)} users beside it, started alternately ${STARTS} times each (start-up: the median). Each load runs on both, one after the other, the order alternating by round; each figure is the median of the rounds, each ratio the median of the per-round ratios, their lowest and highest in brackets.`,
    `- Seeded (\`scripts/bench/seed.js\`, SQL after the service's migrations): every user with one shared bcrypt hash at cost ${COST}, 90 % verified, about half with a live refresh session (a tenth of those with two), an audit trail of each registration, verification and live session's login. At ${count(largest)}: ${results
      .filter((r) => r.users === largest)
      .map(
        (r) =>
          `${label[r.store]} ${Object.entries(r.counts)
            .map(([table, n]) => `${fmt(n)} ${table}`)
            .join(', ')}, seeded in ${fmt(r.seedSeconds)} s`,
      )
      .join('; ')}.`,
    `- Loads (autocannon on the same machine, over loopback): verify-token with access tokens of ${results[0].active} seeded sessions spread over the table, in turn (the same count at every size); refresh, ${REFRESH_CONNECTIONS} connections each rotating the chain of its own fresh login; logins of ${results[0].active} seeded users in turn; registrations of new users. Health: \`GET /api/v1/health\` ${PROBE_RATE} times a second from a worker thread, each latency counted from when the probe was due, during ${WRITE_RATE} writes/s (${WRITE_RATE / 2} registrations and ${WRITE_RATE / 2} refreshes a second, evenly paced) and during a saturating write load (${HASH_CONNECTIONS} connections registering and ${REFRESH_CONNECTIONS} refreshing, back to back).`,
    `- Targets at 1M users on the embedded store (issue 23): ${targets.length === 0 ? 'not judged (no 1M run on the embedded store)' : targets.join('; ')}.`,
    `- Long jobs, after the rounds, on each service of the pair: an administrator (registered, promoted in SQL) asks \`GET /admin/users\` for each listing figure at least 5 times and for 2 s in a row (the median; once before, unmeasured, for the reader thread's start); then the service is stopped, retired sessions for 30 % of its users (rotated two days before) are added in SQL, it is started again and its janitor purges them (the bench counts what is left every 200 ms from a connection of its own). Health is probed every 50 ms (a wait counted from when the probe was due) throughout the listing, and from the last count that found the backlog whole to the first that found it gone.`,
    `- Targets at 1M users (issue 33): ${judgeLongJobs(results).join('; ') || 'not judged (no 1M run)'}.`,
    `- ${kept.length > 0 ? `This run measured ${current.map((r) => `${label[r.store]} ${count(r.users)}`).join(', ')} (the other sizes are kept from before) and took` : 'Took'} ${fmt(minutes, 0)} min.`,
  ].join('\n');
  console.log(`\n${table}\n\n${conditions}`);
  if (!existing.includes(MARKER)) {
    console.log(`\nNo ${MARKER} in docs/performance.md: not written there.`);
    return;
  }
  const data = `<!-- scale:data ${JSON.stringify(results)} -->`;
  writeFileSync(
    DOCS,
    existing.replace(
      new RegExp(`${MARKER}[\\s\\S]*${END}`),
      `${MARKER}\n${table}\n\n${conditions}\n\n${data}\n${END}`,
    ),
  );
  console.log('\nWritten to docs/performance.md');
}

/** The issue's targets, met or missed, for the embedded store's largest size of a million or more. */
function judge(results) {
  const result = results.find((r) => r.store === 'sqlite' && r.users >= 1e6);
  if (!result) return [];
  const f = result.figures;
  const verdict = (met) => (met ? 'met' : '**missed**');
  const lines = [
    `peak RSS ${fmt(f.peakRssMb.target)} MB < ${TARGETS.rssMb}: ${verdict(f.peakRssMb.target < TARGETS.rssMb)}`,
    `health p99 during ${WRITE_RATE} writes/s ${fmt(f.steadyHealthP99.target, 1)} ms < ${TARGETS.healthP99Ms}: ${verdict(f.steadyHealthP99.target < TARGETS.healthP99Ms)}`,
  ];
  for (const key of ['verifyRps', 'refreshRps', 'loginRps', 'registerRps']) {
    const share = f[key].ratio;
    lines.push(
      `${key.replace('Rps', '')} ${fmt(Math.floor(1000 * share) / 10, 1)} % of its 1k figure ≥ ${TARGETS.throughputShare * 100} %: ${verdict(share >= TARGETS.throughputShare)}`,
    );
  }
  return lines;
}

/** Issue 33's targets for the long jobs, on each store's run of a million users or more. */
function judgeLongJobs(results) {
  const verdict = (met) => (met ? 'met' : '**missed**');
  const label = { sqlite: 'embedded store', mariadb: 'MariaDB' };
  return results
    .filter((r) => r.users >= 1e6 && r.figures.listFirstMs)
    .flatMap(({ store, figures: f }) => {
      const under = (key, limit) =>
        `${key} ${fmt(f[key].target, 1)} < ${limit}: ${verdict(f[key].target < limit)}`;
      return [
        `${label[store]}: ${under('listFirstMs', 50)}`,
        under('listSearchMs', 50),
        under('listCursorMs', 50),
        under('listingHealthP99', 50),
        under('listingHealthMax', 250),
        under('purgeHealthP99', 50),
        under('purgeHealthMax', 250),
      ];
    });
}

function version(name) {
  return JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')).version;
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
