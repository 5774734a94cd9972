'use strict';
// The two long jobs of issue 33 in `npm run bench:scale`, each with the health route probed every
// PROBE_EVERY_MS meanwhile: an administrator paging and searching the user listing, and the
// session janitor purging a backlog of retired sessions after a restart (what a busy day, or a
// janitor that could not run, leaves). See docs/performance.md, "The embedded store at scale".
const { performance } = require('node:perf_hooks');
const { randomBytes } = require('node:crypto');
const { administrator, timedGet } = require('./admin-listing');
const { probeUntilStopped } = require('./probe');

const PROBE_EVERY_MS = 50;
/**
 * Each listing request at least REPEATS times in a row and for SCENARIO_MS (at most 1000 times),
 * so that health is probed often enough meanwhile; the median is kept.
 */
const REPEATS = 5;
const SCENARIO_MS = 2000;
/** The backlog, as a share of the users: 300k at 1M. */
const BACKLOG_SHARE = 0.3;
const BACKLOG_AGE_MS = 2 * 24 * 3600_000;
/** How often the bench looks whether the backlog is gone (from its own connection). */
const POLL_MS = 200;
/** A purge that takes longer is reported as not finished. */
const PURGE_LIMIT_MS = 600_000;

const health = (service) =>
  probeUntilStopped(`${service.url}/api/v1/health`, 1000 / PROBE_EVERY_MS, 300);

/** p99 and the longest wait of the probes due in [from, to] (ms since the epoch), and failures. */
function windowed(samples, from = -Infinity, to = Infinity) {
  const inside = samples.filter(([due]) => due >= from && due <= to);
  const latencies = inside
    .map(([, latency]) => latency)
    .filter((latency) => latency !== null)
    .sort((a, b) => a - b);
  const at = (share) =>
    latencies[Math.min(latencies.length - 1, Math.floor(share * latencies.length))];
  return {
    p99: at(0.99) ?? NaN,
    max: latencies[latencies.length - 1] ?? NaN,
    failures: inside.length - latencies.length,
  };
}

/**
 * The listing's first page, a page in the middle by `page`, the page after it by `cursor`, and
 * a prefix search matching thousands at 1M, each the median of REPEATS; health over all of them.
 */
async function listingFigures(service, databaseUrl, users) {
  const token = await administrator(service.url, databaseUrl);
  const get = async (query) => {
    const answer = await timedGet(`${service.url}/api/v1/admin/users?${query}`, token);
    if (answer.status !== 200) throw new Error(`the listing answered ${answer.status} to ${query}`);
    return answer;
  };
  const middle = `page=${Math.max(1, Math.floor(users / 200))}&pageSize=100`;
  // Once, so that no figure pays for the reader thread's start or a cold cache.
  const cursor = (await get(middle)).body.data.next_cursor;
  const timed = async (query) => {
    const times = [];
    const until = performance.now() + SCENARIO_MS;
    while (times.length < REPEATS || (performance.now() < until && times.length < 1000)) {
      times.push((await get(query)).ms);
    }
    return times.sort((a, b) => a - b)[Math.floor(times.length / 2)];
  };
  const probe = health(service);
  const figures = {
    listFirstMs: await timed('pageSize=20'),
    listDeepMs: await timed(middle),
    listCursorMs: await timed(`pageSize=100&cursor=${encodeURIComponent(cursor)}`),
    listSearchMs: await timed('search=ab&pageSize=20'),
  };
  const { samples } = await probe.stop();
  const during = windowed(samples);
  return { ...figures, listingHealthP99: during.p99, listingHealthMax: during.max };
}

/**
 * Stops the service, adds retired sessions (rotated two days ago) for BACKLOG_SHARE of `users`,
 * starts it again (`restart`) and probes health while its janitor purges them. The window runs
 * from the last look that found the backlog whole to the first that found it gone.
 */
async function purgeFigures({ restart, store, databaseUrl, users, userIds }) {
  const backlog = Math.max(1, Math.round(users * BACKLOG_SHARE));
  const rows = await connect(store, databaseUrl);
  try {
    const service = await restart(async () => insertBacklog(rows, backlog, userIds));
    const probe = health(service);
    const started = performance.now();
    let whole = Date.now();
    let left = backlog;
    while (left > 0 && performance.now() - started < PURGE_LIMIT_MS) {
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      left = await rows.count();
      if (left === backlog) whole = Date.now();
    }
    const gone = Date.now();
    const { samples } = await probe.stop();
    const during = windowed(samples, whole, gone);
    return {
      backlog,
      purgeSeconds: left === 0 ? (gone - whole) / 1000 : NaN,
      purgeHealthP99: during.p99,
      purgeHealthMax: during.max,
      purgeHealthFailures: during.failures,
    };
  } finally {
    await rows.close();
  }
}

const BACKLOG_FAMILY = 'bench-backlog';
const COLUMNS = 'id, user_id, family_id, created_at, expires_at, rotated_at, started_at';

/** The rows of a retired session, as the service would have left it: alive for days more. */
function backlogRow(userId) {
  const now = Date.now();
  const date = (ms) => new Date(ms).toISOString().slice(0, 23).replace('T', ' ');
  return [
    randomBytes(32).toString('hex'),
    userId,
    BACKLOG_FAMILY,
    date(now - BACKLOG_AGE_MS - 60_000),
    date(now + 5 * 24 * 3600_000),
    date(now - BACKLOG_AGE_MS),
    date(now - BACKLOG_AGE_MS - 60_000),
  ];
}

async function insertBacklog(rows, backlog, userIds) {
  const all = Array.from({ length: backlog }, (_, i) => backlogRow(userIds[i % userIds.length]));
  await rows.insert(all);
}

/** A connection of the bench's own to `databaseUrl`: inserts the backlog, counts what is left. */
async function connect(store, databaseUrl) {
  // Through the janitor's own index (nothing else in the seeded tables was rotated a day ago).
  const before = new Date(Date.now() - BACKLOG_AGE_MS / 2)
    .toISOString()
    .slice(0, 23)
    .replace('T', ' ');
  const count = `SELECT COUNT(*) AS n FROM refresh_sessions WHERE rotated_at < '${before}'`;
  if (store === 'sqlite') {
    const Database = require('better-sqlite3');
    const db = new Database(databaseUrl.slice('sqlite:'.length), { timeout: 10_000 });
    const insert = db.prepare(
      `INSERT INTO refresh_sessions (${COLUMNS}) VALUES (${COLUMNS.split(',')
        .map(() => '?')
        .join(', ')})`,
    );
    const counting = db.prepare(count);
    return {
      insert: async (all) => db.transaction(() => all.forEach((row) => insert.run(row)))(),
      count: async () => counting.get().n,
      close: async () => db.close(),
    };
  }
  const mysql = require('mysql2/promise');
  const connection = await mysql.createConnection({ uri: databaseUrl });
  return {
    insert: async (all) => {
      for (let i = 0; i < all.length; i += 1000) {
        const chunk = all.slice(i, i + 1000);
        await connection.query(`INSERT INTO refresh_sessions (${COLUMNS}) VALUES ?`, [chunk]);
      }
    },
    count: async () => Number((await connection.query(count))[0][0].n),
    close: () => connection.end(),
  };
}

module.exports = { listingFigures, purgeFigures };
