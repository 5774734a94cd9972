import { closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { DataSourceOptions } from 'typeorm';
import { DatabaseConfig } from '../config/config.sections';
import { InitialSchema1763769600000 } from './migrations/1763769600000-initial-schema';
import { PurgeIndexes1763856000000 } from './migrations/1763856000000-purge-indexes';
import { RetiredSessionsIndex1763942400000 } from './migrations/1763942400000-retired-sessions-index';
import { AuditEvents1764028800000 } from './migrations/1764028800000-audit-events';
import { LiveSessionsIndexes1764115200000 } from './migrations/1764115200000-live-sessions-indexes';
import { AccountProfile1764201600000 } from './migrations/1764201600000-account-profile';
import { SessionDetails1764288000000 } from './migrations/1764288000000-session-details';
import { DisabledAccounts1764374400000 } from './migrations/1764374400000-disabled-accounts';
import { SessionAuthentication1764460800000 } from './migrations/1764460800000-session-authentication';
import { SecondFactor1764547200000 } from './migrations/1764547200000-second-factor';
import { Passkeys1764633600000 } from './migrations/1764633600000-passkeys';
import { EmailCodes1764720000000 } from './migrations/1764720000000-email-codes';
import { IdentityProviders1764806400000 } from './migrations/1764806400000-identity-providers';
import { Reauthentication1764892800000 } from './migrations/1764892800000-reauthentication';
import { SealedFederationFlows1764979200000 } from './migrations/1764979200000-sealed-federation-flows';
import { UserListingIndexes1765065600000 } from './migrations/1765065600000-user-listing-indexes';
import { Webhooks1765152000000 } from './migrations/1765152000000-webhooks';
import { Organizations1765238400000 } from './migrations/1765238400000-organizations';
import { SessionModuleClaims1765324800000 } from './migrations/1765324800000-session-module-claims';
import { OrganizationMemberIndexes1765411200000 } from './migrations/1765411200000-organization-member-indexes';
import { MailQueue1765497600000 } from './migrations/1765497600000-mail-queue';
import { ChallengeProvider1765584000000 } from './migrations/1765584000000-challenge-provider';

export const MIGRATIONS = [
  InitialSchema1763769600000,
  PurgeIndexes1763856000000,
  RetiredSessionsIndex1763942400000,
  AuditEvents1764028800000,
  LiveSessionsIndexes1764115200000,
  AccountProfile1764201600000,
  SessionDetails1764288000000,
  DisabledAccounts1764374400000,
  SessionAuthentication1764460800000,
  SecondFactor1764547200000,
  Passkeys1764633600000,
  EmailCodes1764720000000,
  IdentityProviders1764806400000,
  Reauthentication1764892800000,
  SealedFederationFlows1764979200000,
  UserListingIndexes1765065600000,
  Webhooks1765152000000,
  Organizations1765238400000,
  SessionModuleClaims1765324800000,
  OrganizationMemberIndexes1765411200000,
  MailQueue1765497600000,
  ChallengeProvider1765584000000,
];

/** Seconds a MySQL connection attempt may take before a request answers 503. */
const CONNECT_TIMEOUT_MS = 2000;

/**
 * `DATABASE_URL` → TypeORM options. `sqlite:<file>` and `sqlite::memory:` use better-sqlite3;
 * `mysql://` and `mariadb://` use mysql2. The schema always comes from the migrations, never from
 * `synchronize`.
 *
 * The file is in WAL mode, `synchronous=NORMAL` by default (DATABASE_SYNC): a commit is in the
 * write-ahead log, handed to the operating system, before it returns, so a crash of the process
 * (`kill -9`) loses no acknowledged write; a power cut may lose the last ones, which
 * `DATABASE_SYNC=full` prevents with a sync per commit (docs/performance.md weighs the two).
 * Other processes read and write the file beside the service.
 */
export function buildDataSourceOptions({
  url,
  poolSize,
  timeoutMs,
  sync,
}: DatabaseConfig): DataSourceOptions {
  // No entity list: each feature module registers its own (TypeOrmModule.forFeature) and the
  // root module loads them (autoLoadEntities); the schema is the migrations' alone.
  const common = {
    migrations: MIGRATIONS,
    migrationsRun: true,
    migrationsTransactionMode: 'each' as const,
    synchronize: false,
    logging: false,
  };
  if (url.startsWith('sqlite:')) {
    const database = sqliteFile(url);
    if (!database) return { ...common, type: 'better-sqlite3', database: ':memory:' };
    mkdirSync(dirname(database), { recursive: true });
    // Created readable by its owner only (password hashes, sessions); SQLite gives its WAL and
    // shared-memory files the same mode.
    closeSync(openSync(database, 'a', 0o600));
    return {
      ...common,
      type: 'better-sqlite3',
      database,
      enableWAL: true,
      // How long a write waits for another process's (the migration CLI, `users:promote`, each
      // over in milliseconds): better-sqlite3 waits synchronously, so no longer than a deadline.
      timeout: timeoutMs,
      prepareDatabase: (db: { pragma(source: string): unknown }) => {
        db.pragma(`synchronous = ${sync === 'full' ? 'FULL' : 'NORMAL'}`);
      },
    };
  }
  return {
    ...common,
    type: 'mysql',
    url: url.replace(/^mariadb:/, 'mysql:'),
    charset: 'utf8mb4_unicode_ci',
    timezone: 'Z',
    connectTimeout: CONNECT_TIMEOUT_MS,
    poolSize,
    // mysql2 otherwise captures a stack trace on every query, only to show the calling code in
    // a driver error's stack: 5.6 % of the CPU of a refresh load (docs/performance.md). The cost
    // is for operators only (a failed query's logged stack ends in the driver); clients never
    // see driver errors.
    trace: false,
  };
}

/** The file a `sqlite:` URL names, absolute; undefined for `sqlite::memory:` and for MySQL. */
export function sqliteFile(url: string): string | undefined {
  if (!url.startsWith('sqlite:')) return undefined;
  const file = url.slice('sqlite:'.length);
  return file === ':memory:' ? undefined : resolve(file);
}
