'use strict';
// The administrators' listing (`GET /admin/users`) on a seeded database, and the health route's
// latency while it runs (issue 33): the first page, a deep page by `page`, a deep page by
// `cursor`, and searches, each a few times in a row with health probed meanwhile.
//
//   npm run build && npm run bench:seed -- <DATABASE_URL> 1M
//   node scripts/bench/admin-listing.js <DATABASE_URL> [path/to/another/dist/main.js]
//
// The database is used as it is (the service migrates it at start: the first start after a
// new migration includes building its indexes). An administrator is registered and promoted in
// SQL. Prints one line per scenario; a build without cursors skips the cursor scenarios.
const { randomBytes } = require('node:crypto');
const http = require('node:http');
const { performance } = require('node:perf_hooks');
const { jsonPost } = require('./load');
const { probeAtRate } = require('./probe');
const { startBuiltService } = require('./service');

const REPEATS = Number(process.env.LISTING_REPEATS || 5);
/** Seconds of health probing per scenario (a scenario that takes longer is probed until then). */
const WINDOW = Number(process.env.LISTING_WINDOW || 5);
const PROBE_RATE = 100;

async function main() {
  const [url, main] = process.argv.slice(2);
  if (!url) {
    console.error('Usage: node scripts/bench/admin-listing.js <DATABASE_URL> [dist/main.js]');
    process.exit(2);
  }
  const started = performance.now();
  const service = await startBuiltService({
    name: 'listing',
    main,
    env: () => ({ DATABASE_URL: url, BCRYPT_COST: '10' }),
  });
  console.log(`started in ${ms(performance.now() - started)} (migrations included)`);
  try {
    const token = await administrator(service.url, url);
    const get = (query) => timedGet(`${service.url}/api/v1/admin/users?${query}`, token);
    // Once each, so that no scenario pays for a cold start of the thread or the caches.
    const cold = await get('pageSize=20');
    console.log(`the first listing after the start: ${ms(cold.ms)} (${cold.status})`);
    const deep = await get('page=5000&pageSize=100');
    const cursor = deep.body?.data?.next_cursor;
    const ab = (await get('search=ab&pageSize=20')).body?.data?.next_cursor;
    const scenarios = [
      ['idle (no listing)', null],
      ['first page (pageSize 20)', 'pageSize=20'],
      ['page 5000 of 100 by page', 'page=5000&pageSize=100'],
      ['cursor page at 500,000 (pageSize 100)', cursor && `pageSize=100&cursor=${cursor}`],
      ['search "abcd" (a few matches)', 'search=abcd&pageSize=20'],
      ['search "ab" (thousands)', 'search=ab&pageSize=20'],
      ['search "ab", its second page by cursor', ab && `search=ab&pageSize=20&cursor=${ab}`],
      ['search "a" (tens of thousands)', 'search=a&pageSize=20'],
      ['search "user" (a fifth of all)', 'search=user&pageSize=20'],
    ];
    for (const [name, query] of scenarios) {
      if (query === undefined || (query && query.includes('undefined'))) {
        console.log(`${name}: not offered by this build`);
        continue;
      }
      const health = probeAtRate(`${service.url}/api/v1/health`, PROBE_RATE, WINDOW, 300);
      // The probe's warm-up first, so that the listing runs inside the window.
      await new Promise((resolve) => setTimeout(resolve, 400));
      const times = [];
      const statuses = new Set();
      const windowEnds = performance.now() + (WINDOW - 1) * 1000;
      if (query) {
        for (let i = 0; i < REPEATS || (performance.now() < windowEnds && i < 50); i++) {
          const result = await get(query);
          times.push(result.ms);
          statuses.add(result.status);
          if (i === 0 && result.status === 200) statuses.add(`total ${result.body.data.total}`);
        }
      }
      const probe = await health;
      times.sort((a, b) => a - b);
      console.log(
        `${name}: ${
          query
            ? `median ${ms(times[Math.floor(times.length / 2)])}, max ${ms(times[times.length - 1])} over ${times.length} (${[...statuses].join(', ')}); `
            : ''
        }health meanwhile p50 ${ms(probe.p50)}, p99 ${ms(probe.p99)}, max ${ms(probe.max)} (${probe.count} answered, ${probe.failures} failed)`,
      );
    }
  } finally {
    await service.stop();
  }
}

/** Registers a user, makes it an administrator in SQL, and signs it in. */
async function administrator(base, databaseUrl) {
  const name = `bench${randomBytes(4).toString('hex')}`;
  const email = `${name}@example.com`;
  const password = 'listing-bench-1';
  await jsonPost(`${base}/api/v1/auth/register`, { email, username: name, password });
  await sql(databaseUrl, 'UPDATE users SET role = ? WHERE email_normalized = ?', ['admin', email]);
  const body = await jsonPost(
    `${base}/api/v1/auth/login`,
    { email, password },
    { 'x-token-delivery': 'body' },
  );
  return body.access_token;
}

async function sql(url, statement, params) {
  if (url.startsWith('sqlite:')) {
    const Database = require('better-sqlite3');
    const db = new Database(url.slice('sqlite:'.length), { timeout: 10_000 });
    try {
      db.prepare(statement).run(params);
    } finally {
      db.close();
    }
    return;
  }
  const mysql = require('mysql2/promise');
  const connection = await mysql.createConnection({ uri: url.replace(/^mariadb:/, 'mysql:') });
  try {
    await connection.query(statement, params);
  } finally {
    await connection.end();
  }
}

/** A GET with the token: how long its whole answer took, its status and its JSON body. */
function timedGet(url, token) {
  const start = performance.now();
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers: { authorization: `Bearer ${token}` } }, (res) => {
        const chunks = [];
        res.on('data', (chunk) => chunks.push(chunk));
        res.on('end', () => {
          let body;
          try {
            body = JSON.parse(Buffer.concat(chunks).toString());
          } catch {
            body = undefined;
          }
          resolve({ ms: performance.now() - start, status: res.statusCode, body });
        });
      })
      .on('error', reject);
  });
}

const ms = (value) => (value === undefined ? '–' : `${value.toFixed(1)} ms`);

module.exports = { administrator, sql, timedGet };

if (require.main === module) {
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
