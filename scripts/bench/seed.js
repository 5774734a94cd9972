'use strict';
// Fills a fresh database with users as the service would have stored them, straight in SQL (not
// over HTTP), for measuring the service at scale (scripts/bench/scale.js, docs/performance.md).
//
//   npm run build && npm run bench:seed -- <DATABASE_URL> <users: 1000, 250k, 1M>
//
// The database must exist and be empty (a new SQLite file is created).
//
// The schema comes from the service's own migrations, run through its TypeORM options
// (`buildDataSourceOptions` in dist/), so the seeded tables are the ones the service reads.
// Every user shares one precomputed bcrypt hash of SEED_PASSWORD (a hash of its own for each user,
// at the service's cost, would take hours at the sizes measured). Beside the users, what a service that has run for a while
// keeps (the janitor deletes everything else):
// - a live refresh session for about half of the users (one in ten of those has a second one);
// - an audit trail with each user's registration, each verification and each live session's login;
// - a pending verification token for the unverified users registered within its lifetime.
// Rows are written in transactions of BATCH users (multi-row INSERTs on MariaDB). On SQLite in
// the random order of their keys, as registrations would have left the tables and indexes; on
// MariaDB in increasing primary-key order (see `primaryKeys`), as a restored dump would be.
const { randomBytes, randomUUID } = require('node:crypto');
const { closeSync, fsyncSync, openSync } = require('node:fs');
const { join } = require('node:path');
const bcrypt = require('bcryptjs');

const ROOT = join(__dirname, '..', '..');
const SEED_PASSWORD = 'scale-password-1';
const BATCH = 20_000;
/** Rows per INSERT statement on MariaDB. */
const ROWS_PER_STATEMENT = 1000;
const DAY_MS = 24 * 3600_000;
/** Accounts were created over this long before now. */
const HISTORY_MS = 730 * DAY_MS;
/** The service's defaults: REFRESH_TOKEN_TTL, SESSION_MAX_AGE, the verification link's life. */
const REFRESH_TTL_MS = 7 * DAY_MS;
const SESSION_MAX_AGE_MS = 30 * DAY_MS;
const VERIFICATION_TTL_MS = DAY_MS;
const VERIFIED_SHARE = 0.9;
const SESSION_SHARE = 0.5;
const SECOND_SESSION_SHARE = 0.1;
const USER_AGENTS = [
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_6) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0',
  'okhttp/4.12.0',
];
const DOMAINS = ['example.com', 'example.org', 'mail.example.net', 'example.io', 'Example.COM'];

const COLUMNS = {
  users: [
    'id',
    'email',
    'email_normalized',
    'username',
    'username_normalized',
    'password_hash',
    'role',
    'email_verified',
    'verified_at',
    'token_version',
    'created_at',
    'updated_at',
    'name',
    'picture',
    'disabled_at',
  ],
  refresh_sessions: [
    'id',
    'user_id',
    'family_id',
    'created_at',
    'expires_at',
    'rotated_at',
    'revoked_at',
    'started_at',
    'ip',
    'user_agent',
  ],
  verification_tokens: ['id', 'user_id', 'purpose', 'created_at', 'expires_at', 'used_at'],
  audit_events: ['id', 'type', 'user_id', 'ip', 'user_agent', 'created_at', 'session_id'],
};

/** A datetime as the service stores it on both databases: UTC, milliseconds, no zone. */
const sqlDate = (ms) => new Date(ms).toISOString().slice(0, 23).replace('T', ' ');
const pick = (items) => items[Math.floor(Math.random() * items.length)];
const ip = () => `203.0.113.${1 + Math.floor(Math.random() * 254)}`;

/** Random bytes from a pool: one `randomBytes` call per row costs more than the row's insert. */
let pool = Buffer.alloc(0);
let used = 0;
function random(size) {
  if (used + size > pool.length) {
    pool = randomBytes(1 << 16);
    used = 0;
  }
  used += size;
  return pool.subarray(used - size, used);
}

const hex = (value, digits) => value.toString(16).padStart(digits, '0');

/**
 * The primary keys of the seeded rows, shaped as the service makes them: `user_` and 18 digits,
 * a token's SHA-256 in hex, a UUID. Random, or (`ordered`) random within evenly spread, increasing
 * slots: InnoDB stores a table in primary-key order, and rows arriving in random key order into a
 * table larger than its buffer pool make nearly every insert read a page from disk (the
 * largest sizes would take longer to seed than to measure). `users` bounds how many keys of each kind are asked
 * for (at most two sessions and four audit events per user).
 */
function primaryKeys(users, ordered) {
  const slot = (k, bound, space) =>
    (BigInt(k) * space) / BigInt(bound) + (random(8).readBigUInt64BE() % (space / BigInt(bound)));
  const counters = { user: 0, session: 0, audit: 0 };
  const next = (kind) => counters[kind]++;
  return {
    user: ordered
      ? () =>
          `user_${slot(next('user'), users, 10n ** 18n)
            .toString()
            .padStart(18, '0')}`
      : () => `user_${(random(8).readBigUInt64BE() % 10n ** 18n).toString().padStart(18, '0')}`,
    session: ordered
      ? () => hex(slot(next('session'), 2 * users, 2n ** 64n), 16) + random(24).toString('hex')
      : () => random(32).toString('hex'),
    audit: ordered
      ? () => {
          const h = hex(slot(next('audit'), 4 * users, 2n ** 64n), 16) + random(8).toString('hex');
          return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
        }
      : () => randomUUID(),
  };
}

/**
 * The rows of `count` users, BATCH users at a time: `{ users, refresh_sessions,
 * verification_tokens, audit_events }`, each a list of value lists in COLUMNS order. `keep`
 * hears every user and session, to keep a few for the load.
 */
function* batches(count, passwordHash, keep, keys) {
  const now = Date.now();
  const ids = new Set();
  for (let start = 0; start < count; start += BATCH) {
    const rows = { users: [], refresh_sessions: [], verification_tokens: [], audit_events: [] };
    for (let i = start; i < Math.min(count, start + BATCH); i++) {
      let id = keys.user();
      while (ids.has(id)) id = keys.user();
      ids.add(id);
      const created = now - Math.floor(Math.random() * HISTORY_MS);
      const verified =
        Math.random() < VERIFIED_SHARE
          ? Math.min(now, created + 60_000 + Math.floor(Math.random() * 3_600_000))
          : null;
      // Random first, so the unique indexes fill in random order as registrations fill them.
      const local = `${random(4).toString('hex')}.${i.toString(36)}`;
      const email = `${i % 7 === 0 ? local.toUpperCase() : local}@${DOMAINS[i % DOMAINS.length]}`;
      const username = `${i % 5 === 0 ? 'User' : 'u'}${random(3).toString('hex')}_${i.toString(36)}`;
      const userAgent = pick(USER_AGENTS);
      rows.users.push([
        id,
        email,
        email.toLowerCase(),
        username,
        username.toLowerCase(),
        passwordHash,
        'user',
        verified === null ? 0 : 1,
        verified === null ? null : sqlDate(verified),
        // Some users logged out everywhere or reset their password.
        Math.random() < 0.1 ? 1 + Math.floor(Math.random() * 3) : 0,
        sqlDate(created),
        sqlDate(verified ?? created),
        Math.random() < 0.3 ? `Seeded User ${i}` : null,
        null,
        null,
      ]);
      rows.audit_events.push([
        keys.audit(),
        'registered',
        id,
        ip(),
        userAgent,
        sqlDate(created),
        null,
      ]);
      if (verified !== null) {
        rows.audit_events.push([
          keys.audit(),
          'email_verified',
          id,
          ip(),
          userAgent,
          sqlDate(verified),
          null,
        ]);
      } else if (now - created < VERIFICATION_TTL_MS) {
        rows.verification_tokens.push([
          random(32).toString('hex'),
          id,
          'email_verification',
          sqlDate(created),
          sqlDate(created + VERIFICATION_TTL_MS),
          null,
        ]);
      }
      keep.user(rows.users[rows.users.length - 1]);
      const sessions =
        Math.random() < SESSION_SHARE ? (Math.random() < SECOND_SESSION_SHARE ? 2 : 1) : 0;
      for (let s = 0; s < sessions; s++) {
        // Logged in within the session's maximum age (and after registering), last rotated
        // within the refresh token's lifetime (and after logging in).
        const started = Math.max(
          created,
          now - Math.floor(Math.random() * (SESSION_MAX_AGE_MS - DAY_MS)),
        );
        const rotated = Math.max(
          started,
          now - Math.floor(Math.random() * (REFRESH_TTL_MS - DAY_MS)),
        );
        const family = randomUUID();
        const sessionIp = ip();
        rows.refresh_sessions.push([
          keys.session(),
          id,
          family,
          sqlDate(rotated),
          sqlDate(rotated + REFRESH_TTL_MS),
          null,
          null,
          sqlDate(started),
          sessionIp,
          userAgent,
        ]);
        rows.audit_events.push([
          keys.audit(),
          'login_succeeded',
          id,
          sessionIp,
          userAgent,
          sqlDate(started),
          family,
        ]);
        keep.session(rows.users[rows.users.length - 1], family);
      }
    }
    yield rows;
  }
}

/**
 * Keeps up to `size` users (their emails, to log in) and `size` sessions (to sign access tokens
 * for), spread evenly over the table.
 */
function sampler(count, size) {
  const userStride = Math.max(1, Math.floor(count / size));
  const sessionStride = Math.max(1, Math.floor((count * SESSION_SHARE) / size));
  const kept = { emails: [], sessions: [] };
  let users = 0;
  let sessions = 0;
  return {
    kept,
    user(row) {
      if (users++ % userStride === 0 && kept.emails.length < size) kept.emails.push(row[1]);
    },
    session(row, family) {
      if (sessions++ % sessionStride === 0 && kept.sessions.length < size) {
        kept.sessions.push({ userId: row[0], sessionId: family, version: row[9], role: row[6] });
      }
    },
  };
}

/** The service's migrations, through the service's own TypeORM options (the build's). */
async function migrate(url) {
  const { DataSource } = require('typeorm');
  const { buildDataSourceOptions } = require(join(ROOT, 'dist', 'database', 'data-source.options'));
  const dataSource = new DataSource(
    buildDataSourceOptions({ url, poolSize: 2, timeoutMs: 10_000 }),
  );
  await dataSource.initialize();
  await dataSource.destroy();
}

async function writeSqlite(url, rowBatches) {
  const Database = require('better-sqlite3');
  const file = url.slice('sqlite:'.length);
  const db = new Database(file);
  try {
    // A seed that fails is run again from scratch: no sync needed while it writes. The service
    // sets its own `synchronous` on every connection.
    db.pragma('synchronous = OFF');
    // Rows go to random places in every index: a page cache that holds them saves rereading.
    db.pragma('cache_size = -1000000');
    const inserts = Object.fromEntries(
      Object.entries(COLUMNS).map(([table, columns]) => [
        table,
        db.prepare(
          `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`,
        ),
      ]),
    );
    const write = db.transaction((rows) => {
      for (const table of Object.keys(COLUMNS)) {
        for (const row of rows[table]) inserts[table].run(row);
      }
    });
    for (const rows of rowBatches) write(rows);
    db.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    db.close();
  }
  // On disk before the service starts, as a running service's file would be: left to the
  // kernel, the writeback would go on during the measurements, and the first checkpoint's fsync
  // (of this file or, through the file system's journal, another one) would wait for all of it.
  const fd = openSync(file, 'r+');
  fsyncSync(fd);
  closeSync(fd);
}

async function writeMysql(url, rowBatches) {
  const mysql = require('mysql2/promise');
  const connection = await mysql.createConnection({ uri: url.replace(/^mariadb:/, 'mysql:') });
  try {
    // Unique by construction: InnoDB need not check each row against the indexes.
    await connection.query('SET unique_checks = 0, foreign_key_checks = 0');
    const restore = await withoutSecondaryIndexes(connection);
    for (const rows of rowBatches) {
      await connection.beginTransaction();
      for (const table of Object.keys(COLUMNS)) {
        for (let i = 0; i < rows[table].length; i += ROWS_PER_STATEMENT) {
          await connection.query(`INSERT INTO ${table} (${COLUMNS[table].join(', ')}) VALUES ?`, [
            rows[table].slice(i, i + ROWS_PER_STATEMENT),
          ]);
        }
      }
      await connection.commit();
    }
    await restore();
  } finally {
    await connection.end();
  }
}

/**
 * Drops the seeded tables' secondary indexes and foreign keys, and returns what puts them back
 * as the migrations made them (checked against `SHOW CREATE TABLE`). Rows in random order into
 * indexes larger than the buffer pool cost a disk read each; an index added afterwards is built
 * by sorting.
 */
async function withoutSecondaryIndexes(connection) {
  const tables = Object.keys(COLUMNS);
  const created = {};
  const definitions = {};
  for (const table of tables) {
    const [[row]] = await connection.query(`SHOW CREATE TABLE ${table}`);
    created[table] = row['Create Table'];
    const lines = created[table].split('\n').map((line) => line.trim().replace(/,$/, ''));
    definitions[table] = {
      indexes: lines.filter((line) => /^(UNIQUE )?KEY `/.test(line)),
      foreignKeys: lines.filter((line) => line.startsWith('CONSTRAINT `')),
    };
  }
  const name = (line) => /`([^`]+)`/.exec(line)[1];
  const alter = async (table, clauses) => {
    if (clauses.length > 0) await connection.query(`ALTER TABLE ${table} ${clauses.join(', ')}`);
  };
  for (const table of tables) {
    await alter(
      table,
      definitions[table].foreignKeys.map((line) => `DROP FOREIGN KEY \`${name(line)}\``),
    );
  }
  for (const table of tables) {
    await alter(
      table,
      definitions[table].indexes.map((line) => `DROP INDEX \`${name(line)}\``),
    );
  }
  return async () => {
    for (const table of tables) {
      await alter(
        table,
        definitions[table].indexes.map((line) => `ADD ${line}`),
      );
    }
    for (const table of tables) {
      await alter(
        table,
        definitions[table].foreignKeys.map((line) => `ADD ${line}`),
      );
    }
    for (const table of tables) {
      const [[row]] = await connection.query(`SHOW CREATE TABLE ${table}`);
      if (row['Create Table'] !== created[table]) {
        throw new Error(
          `${table} differs from the migrations' after seeding:\n${row['Create Table']}`,
        );
      }
    }
  };
}

/**
 * Creates the schema on the fresh database `url` and seeds `users` users. Resolves with what was
 * written, how long it took, and a sample of `sample` emails and live sessions spread over the
 * table (every seeded user's password is SEED_PASSWORD).
 */
async function seedDatabase({ url, users, sample = 0, cost = 10 }) {
  const sqlite = url.startsWith('sqlite:');
  const started = Date.now();
  await migrate(url);
  const passwordHash = bcrypt.hashSync(SEED_PASSWORD, cost);
  const keep = sampler(users, sample);
  const counts = { users: 0, refresh_sessions: 0, verification_tokens: 0, audit_events: 0 };
  function* counted() {
    for (const rows of batches(users, passwordHash, keep, primaryKeys(users, !sqlite))) {
      for (const table of Object.keys(counts)) counts[table] += rows[table].length;
      yield rows;
    }
  }
  if (sqlite) await writeSqlite(url, counted());
  else await writeMysql(url, counted());
  return { counts, seconds: (Date.now() - started) / 1000, sample: keep.kept };
}

/** A count of users as people write it: `1000`, `250k`, `1M`; NaN otherwise. */
function parseUsers(text) {
  const match = /^\s*(\d+(?:\.\d+)?)\s*([kKmM]?)\s*$/.exec(text);
  if (!match) return NaN;
  return Math.round(Number(match[1]) * { '': 1, k: 1e3, m: 1e6 }[match[2].toLowerCase()]);
}

module.exports = { SEED_PASSWORD, parseUsers, seedDatabase };

if (require.main === module) {
  const [url, count] = process.argv.slice(2);
  const users = parseUsers(count ?? '');
  if (!url || !(users >= 0)) {
    console.error(
      'Usage: npm run bench:seed -- <DATABASE_URL> <users: 1000, 250k, 1M>   (after npm run build)',
    );
    process.exit(2);
  }
  seedDatabase({ url, users, cost: Number(process.env.BCRYPT_COST || 10) })
    .then(({ counts, seconds }) => {
      console.log(
        `Seeded in ${seconds.toFixed(1)} s: ${Object.entries(counts)
          .map(([table, n]) => `${n} ${table}`)
          .join(', ')}. Every password: ${SEED_PASSWORD}`,
      );
    })
    .catch((error) => {
      console.error(error);
      process.exit(1);
    });
}
