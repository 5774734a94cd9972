'use strict';
// npm run bench:organizations: the organization routes on a small and a large set of
// organizations (issue 36), each figure the large database's beside the small one's, measured in
// the same round, on the embedded store and on MariaDB. See docs/performance.md, "Organizations
// at scale". ORGS_DATABASES (default sqlite,mariadb), ORGS_DURATION (seconds per load run,
// default 3), ORGS_RUNS (rounds, default 2; the median is kept), ORGS_MYSQL_URL (default
// BENCH_MYSQL_URL or mysql://root@127.0.0.1:3306; unreachable: the MariaDB part is skipped).
//
// Both databases hold the same USERS users (scripts/bench/seed.js), so only the organization
// tables differ. In both, one organization has BIG_ORG members and the probe user belongs to
// PROBE_MEMBERSHIPS organizations (that one among them); the other organizations share the rest
// of the memberships evenly.
const { execSync } = require('node:child_process');
const { randomBytes } = require('node:crypto');
const { mkdtempSync, readFileSync, rmSync, writeFileSync } = require('node:fs');
const { availableParallelism, cpus, loadavg, tmpdir, totalmem } = require('node:os');
const http = require('node:http');
const { join } = require('node:path');
const { jsonPost, runAutocannon } = require('./load');
const { SEED_PASSWORD, seedDatabase } = require('./seed');
const { ROOT, startBuiltService } = require('./service');

const STORES = (process.env.ORGS_DATABASES || 'sqlite,mariadb').split(',').map((s) => s.trim());
const DURATION = Number(process.env.ORGS_DURATION || 3);
const RUNS = Number(process.env.ORGS_RUNS || 2);
const MYSQL_SERVER = (
  process.env.ORGS_MYSQL_URL ||
  process.env.BENCH_MYSQL_URL ||
  'mysql://root@127.0.0.1:3306'
).replace(/\/$/, '');
const USERS = 10_000;
const SIZES = {
  small: { organizations: 100, memberships: 2_000 },
  large: { organizations: 10_000, memberships: 100_000 },
};
const BIG_ORG = 1_000;
const PROBE_MEMBERSHIPS = 10;
const PAGE_LIMIT = 100;
const CONNECTIONS = 10;
const SETTLE_MS = 500;
const DAY_MS = 24 * 3600_000;
const sqlDate = (ms) => new Date(ms).toISOString().slice(0, 23).replace('T', ' ');
const orgId = (i) => `org_${String(i).padStart(18, '0')}`;

/** The middle value; of an even count, the mean of the two middle ones (2 rounds by default). */
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const half = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[half] : (sorted[half - 1] + sorted[half]) / 2;
};
const fmt = (n, digits = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

/**
 * The organization rows: organization 0 has BIG_ORG members (the probe user first, its owner);
 * organizations 1…PROBE_MEMBERSHIPS-1 have the probe user too; every other membership goes to
 * the organizations round the users, so no user is twice in one.
 */
function organizationRows({ organizations, memberships }, userIds, probe) {
  const now = Date.now();
  const others = userIds.filter((id) => id !== probe);
  const orgs = [];
  const members = [];
  for (let i = 0; i < organizations; i++) {
    const created = now - 400 * DAY_MS + i * 60_000;
    orgs.push([
      orgId(i),
      `Organization ${i}`,
      `organization-${i}`,
      sqlDate(created),
      sqlDate(created),
    ]);
  }
  const join = (org, user, role, k) =>
    members.push([orgId(org), user, role, sqlDate(now - 300 * DAY_MS + k * 1000)]);
  join(0, probe, 'owner', 0);
  for (let k = 1; k < BIG_ORG; k++) join(0, others[k - 1], 'member', k);
  for (let i = 1; i < PROBE_MEMBERSHIPS; i++) join(i, probe, 'member', i);
  const rest = memberships - members.length;
  const per = rest / (organizations - 1);
  let next = BIG_ORG;
  for (let i = 1; i < organizations; i++) {
    const count = Math.round(per * i) - Math.round(per * (i - 1));
    for (let k = 0; k < count; k++) {
      join(i, others[next % others.length], k === 0 ? 'owner' : 'member', k + 10);
      next++;
    }
  }
  return { orgs, members };
}

const ORG_COLUMNS = 'id, name, slug, created_at, updated_at';
const MEMBER_COLUMNS = 'organization_id, user_id, role, created_at';

const stores = {
  sqlite: {
    label: 'embedded store (SQLite)',
    create: async () => {
      const dir = mkdtempSync(join(tmpdir(), 'auth-orgs-'));
      return {
        url: `sqlite:${join(dir, 'auth.sqlite')}`,
        drop: async () => rmSync(dir, { recursive: true, force: true }),
      };
    },
    userIds: async (url, email) => {
      const db = new (require('better-sqlite3'))(url.slice('sqlite:'.length));
      try {
        const ids = db
          .prepare('SELECT id FROM users')
          .all()
          .map((row) => row.id);
        const probe = db.prepare('SELECT id FROM users WHERE email = ?').get(email).id;
        return { ids, probe };
      } finally {
        db.close();
      }
    },
    insert: async (url, { orgs, members }) => {
      const db = new (require('better-sqlite3'))(url.slice('sqlite:'.length));
      try {
        const o = db.prepare(`INSERT INTO organizations (${ORG_COLUMNS}) VALUES (?, ?, ?, ?, ?)`);
        const m = db.prepare(
          `INSERT INTO organization_members (${MEMBER_COLUMNS}) VALUES (?, ?, ?, ?)`,
        );
        db.transaction(() => {
          for (const row of orgs) o.run(row);
          for (const row of members) m.run(row);
        })();
        db.exec('ANALYZE');
        db.pragma('wal_checkpoint(TRUNCATE)');
      } finally {
        db.close();
      }
    },
  },
  mariadb: {
    label: 'MariaDB',
    create: async () => {
      const name = `auth_orgs_${randomBytes(4).toString('hex')}`;
      await mysqlAdmin(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4`);
      return {
        url: `${MYSQL_SERVER}/${name}`,
        drop: () => mysqlAdmin(`DROP DATABASE IF EXISTS \`${name}\``),
      };
    },
    userIds: async (url, email) => {
      const rows = await mysqlQuery(url, 'SELECT id, email FROM users');
      return { ids: rows.map((row) => row.id), probe: rows.find((row) => row.email === email).id };
    },
    insert: async (url, { orgs, members }) => {
      const mysql = require('mysql2/promise');
      const connection = await mysql.createConnection({ uri: url });
      try {
        for (const [table, columns, rows] of [
          ['organizations', ORG_COLUMNS, orgs],
          ['organization_members', MEMBER_COLUMNS, members],
        ]) {
          for (let i = 0; i < rows.length; i += 1000) {
            await connection.query(`INSERT INTO ${table} (${columns}) VALUES ?`, [
              rows.slice(i, i + 1000),
            ]);
          }
        }
        await connection.query('ANALYZE TABLE organizations, organization_members');
      } finally {
        await connection.end();
      }
    },
  },
};

async function mysqlQuery(uri, statement, parameters = []) {
  const mysql = require('mysql2/promise');
  const connection = await mysql.createConnection({ uri, connectTimeout: 3000 });
  try {
    const [rows] = await connection.query(statement, parameters);
    return rows;
  } finally {
    await connection.end();
  }
}
const mysqlAdmin = (statement, parameters) => mysqlQuery(MYSQL_SERVER, statement, parameters);

function getJson(url, token) {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers: { authorization: `Bearer ${token}` } }, (res) => {
        let body = '';
        res.on('data', (chunk) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode, body: JSON.parse(body) }));
      })
      .on('error', reject);
  });
}

/** A database of `size` with its service running and the probe user's token. */
async function prepare(store, size, cleanup) {
  const database = await store.create();
  cleanup.push(() => database.drop());
  const seeded = await seedDatabase({ url: database.url, users: USERS, sample: 1 });
  const email = seeded.sample.emails[0];
  const { ids, probe } = await store.userIds(database.url, email);
  const rows = organizationRows(size, ids, probe);
  const started = Date.now();
  await store.insert(database.url, rows);
  const seconds = seeded.seconds + (Date.now() - started) / 1000;
  const service = await startBuiltService({
    name: 'orgs',
    env: () => ({ DATABASE_URL: database.url }),
  });
  cleanup.push(() => service.stop());
  const body = await jsonPost(
    `${service.url}/api/v1/auth/login`,
    { email, password: SEED_PASSWORD },
    { 'x-token-delivery': 'body' },
  );
  const token = body.access_token;
  const base = `${service.url}/api/v1/organizations`;
  const routes = {
    mine: base,
    page: `${base}/${orgId(0)}/members?page=1&limit=${PAGE_LIMIT}`,
    all: `${base}/${orgId(0)}/members`,
  };
  // What each route answers, checked before it is measured.
  const expected = {
    mine: ['organizations', PROBE_MEMBERSHIPS],
    page: ['members', PAGE_LIMIT],
    all: ['members', BIG_ORG],
  };
  for (const [key, url] of Object.entries(routes)) {
    const { status, body: answer } = await getJson(url, token);
    const [field, count] = expected[key];
    if (status !== 200 || answer.data[field].length !== count) {
      throw new Error(`${key}: ${status}, ${JSON.stringify(answer).slice(0, 200)}`);
    }
  }
  return {
    service,
    token,
    routes,
    counts: { organizations: rows.orgs.length, memberships: rows.members.length },
    seconds,
  };
}

const FIGURES = [
  ['mine', 'GET /organizations (the probe user: 10 memberships)'],
  [
    'page',
    `GET /organizations/:id/members?page=1&limit=${PAGE_LIMIT} (of ${fmt(BIG_ORG)} members)`,
  ],
  ['all', `GET /organizations/:id/members, no page: all ${fmt(BIG_ORG)} members`],
];

async function measure(storeKey) {
  const store = stores[storeKey];
  const cleanup = [];
  try {
    const pair = {
      small: await prepare(store, SIZES.small, cleanup),
      large: await prepare(store, SIZES.large, cleanup),
    };
    const load = [loadavg()[0]];
    const rounds = [];
    for (let round = 1; round <= RUNS; round++) {
      const figures = {};
      for (const [key] of FIGURES) {
        const order = round % 2 === 1 ? ['small', 'large'] : ['large', 'small'];
        figures[key] = {};
        for (const name of order) {
          const { routes, token } = pair[name];
          const result = await runAutocannon({
            url: routes[key],
            connections: CONNECTIONS,
            duration: DURATION,
            headers: { authorization: `Bearer ${token}` },
          });
          if (result.failures > 0)
            throw new Error(`${key} on ${name}: ${result.failures} failures`);
          figures[key][name] = result;
          await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
        }
      }
      rounds.push(figures);
      console.log(
        `  ${store.label} round ${round}: ` +
          FIGURES.map(
            ([key]) => `${key} ${fmt(figures[key].large.rps)}/${fmt(figures[key].small.rps)} req/s`,
          ).join(', '),
      );
    }
    load.push(loadavg()[0]);
    const result = {};
    for (const [key] of FIGURES) {
      const pick = (name, field) => median(rounds.map((r) => r[key][name][field]));
      const ratios = (field) => rounds.map((r) => r[key].large[field] / r[key].small[field]);
      result[key] = {
        small: { rps: pick('small', 'rps'), p99: pick('small', 'p99') },
        large: { rps: pick('large', 'rps'), p99: pick('large', 'p99') },
        rpsRatios: ratios('rps'),
        p99Ratios: ratios('p99'),
      };
    }
    return {
      store: storeKey,
      figures: result,
      load,
      counts: { small: pair.small.counts, large: pair.large.counts },
      seconds: { small: pair.small.seconds, large: pair.large.seconds },
      at: new Date().toISOString(),
    };
  } finally {
    for (const step of cleanup.reverse()) await step().catch(() => {});
  }
}

function report(results, minutes) {
  const label = { sqlite: 'embedded store', mariadb: 'MariaDB' };
  const ratio = (values) =>
    `×${fmt(median(values), 2)} (${fmt(Math.min(...values), 2)}–${fmt(Math.max(...values), 2)})`;
  const lines = [
    '| route | database | req/s large | req/s small | ratio (rounds) | p99 large (ms) | p99 small (ms) | ratio (rounds) |',
    '|---|---|---|---|---|---|---|---|',
  ];
  for (const [key, name] of FIGURES) {
    for (const r of results) {
      const f = r.figures[key];
      lines.push(
        `| ${name} | ${label[r.store]} | ${fmt(f.large.rps)} | ${fmt(f.small.rps)} | ${ratio(f.rpsRatios)} | ${fmt(f.large.p99)} | ${fmt(f.small.p99)} | ${ratio(f.p99Ratios)} |`,
      );
    }
  }
  const version = (name) =>
    JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')).version;
  const conditions = [
    `- Machine: ${cpus()[0].model}, ${availableParallelism()} cores, ${fmt(totalmem() / 2 ** 30, 1)} GiB. Load average (1 min; the two services and the load generator hold 2 to 3 of it themselves) at the start and end of each store's rounds: ${results.map((r) => `${label[r.store]} ${r.load.map((l) => fmt(l, 1)).join(' → ')}, ended ${r.at.slice(0, 16).replace('T', ' ')} UTC`).join('; ')}.`,
    `- Node ${process.version}; NestJS ${version('@nestjs/core')}, Express, TypeORM ${version('typeorm')}, autocannon ${version('autocannon')}. Service: the build as \`npm run start:prod\` runs it, \`NODE_ENV=production\`, rate limits raised, every other setting its default; one service per database, both running side by side.`,
    `- Databases (\`scripts/bench/organizations.js\`): ${fmt(USERS)} users in both (\`scripts/bench/seed.js\`); small: ${fmt(SIZES.small.organizations)} organizations and ${fmt(results[0].counts.small.memberships)} memberships; large: ${fmt(SIZES.large.organizations)} organizations and ${fmt(results[0].counts.large.memberships)} memberships. In both, one organization of ${fmt(BIG_ORG)} members and a probe user in ${PROBE_MEMBERSHIPS} organizations (that one among them); the other memberships spread evenly (about 10 an organization), written in SQL after the migrations, then \`ANALYZE\`.`,
    `- Load: autocannon, ${CONNECTIONS} connections, ${DURATION} s per run, with the probe user's access token; each route on both databases one after the other, the order alternating by round; ${RUNS} rounds. Figures: the median of the rounds; ratio large/small: the median of the per-round ratios, the lowest and highest in brackets. Took ${fmt(minutes, 0)} min.`,
  ].join('\n');
  const text = `${lines.join('\n')}\n\n${conditions}`;
  console.log(`\n${text}`);
  const docs = join(ROOT, 'docs', 'performance.md');
  const existing = readFileSync(docs, 'utf8');
  const [start, end] = ['<!-- organizations:start -->', '<!-- organizations:end -->'];
  if (!existing.includes(start))
    return console.log(`\nNo ${start} in docs/performance.md: not written there.`);
  writeFileSync(
    docs,
    existing.replace(new RegExp(`${start}[\\s\\S]*${end}`), `${start}\n${text}\n${end}`),
  );
  console.log('\nWritten to docs/performance.md');
}

async function main() {
  const started = Date.now();
  console.log('Building…');
  execSync('npm run -s build', { cwd: ROOT, stdio: 'inherit' });
  const results = [];
  for (const key of STORES) {
    if (!stores[key]) throw new Error(`ORGS_DATABASES: ${key} is neither sqlite nor mariadb`);
    if (key === 'mariadb') {
      try {
        await mysqlAdmin('SELECT 1');
      } catch (error) {
        console.log(
          `MariaDB not reachable at ${MYSQL_SERVER} (${error.code || error.message}): not measured.`,
        );
        continue;
      }
    }
    console.log(`\n${stores[key].label}:`);
    results.push(await measure(key));
  }
  report(results, (Date.now() - started) / 60000);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
