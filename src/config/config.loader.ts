import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import { compile as compileProxyList } from 'proxy-addr';
import { readAccessSigning } from './access-keys.reader';
import {
  AccessSigning,
  Config,
  DATABASE_SYNC_MODES,
  HTTP_PLATFORMS,
  HttpPlatform,
  LOG_FORMATS,
  LOG_LEVELS,
  LogConfig,
  MfaConfig,
  TrustProxySetting,
  HooksConfig,
  WebhookConfig,
} from './config.sections';
import { loadOrCreateDevMfaKey, loadOrCreateDevSecrets } from './dev-secrets';
import { EnvReader, RawEnv } from './env.reader';
import { ACCESS_ALGORITHMS } from './signing-keys';
import { readIdentityProviders } from './identity-providers.reader';
import { readWebAuthn } from './webauthn.reader';
import { readHooks } from './hooks.reader';
import { ROLES } from '../users/user.entity';

const DAY = 86_400;
const MIN_SECRET_LENGTH = 32;
/** RFC 9068 `client_id` of the tokens this service issues to its own sign-in (no OAuth client). */
const DEFAULT_CLIENT_ID = 'auth-service';

/**
 * Validates the whole environment once, at boot, and returns it as typed sections. Any invalid
 * variable throws a ConfigError whose one line names every invalid variable. `read` is given only
 * by the configuration reference's generator, which notes what is read.
 */
export function loadConfig(env: RawEnv, read = new EnvReader(env)): Config {
  const nodeEnv = read.string('NODE_ENV') ?? 'development';
  const production = nodeEnv === 'production';
  const port = read.int('PORT', 3000, 0, 65_535);
  const dataDir = resolve(read.string('DATA_DIR') ?? './data');
  const corsOrigins = read.origins('CORS_ORIGINS', ['http://localhost:5173']);
  const accessTtl = read.int('ACCESS_TOKEN_TTL', 900, 1, DAY);
  const algorithm = readAlgorithm(read);
  // A key variable is judged against the algorithm: with an unreadable one, it cannot be.
  const knownAlgorithm = read.isValid('JWT_ALGORITHM');
  const publicUrl = read.url('PUBLIC_URL', `http://localhost:${port}`);
  const issuer = read.string('JWT_ISSUER') ?? publicUrl;
  const { accessSecret, refreshSecret } = readSecrets(
    read,
    production,
    dataDir,
    knownAlgorithm && algorithm === 'HS256',
  );
  const access = knownAlgorithm
    ? read.attempt(() =>
        readAccessSigning(read, algorithm, accessSecret, { production, dataDir, accessTtl }),
      )
    : undefined;

  const appName = read.string('APP_NAME') ?? 'Auth Service';
  const appOrigins = read.origins('APP_ORIGINS', corsOrigins);

  const config: Config = {
    app: {
      nodeEnv,
      production,
      port,
      httpPlatform: read.oneOf('HTTP_PLATFORM', 'express', HTTP_PLATFORMS),
      host: read.string('HOST'),
      publicUrl,
      appName,
      corsOrigins,
      appOrigins,
      trustProxy: readTrustProxy(read),
      dataDir,
      // A deployment describes itself only when asked to; a developer's service always does.
      apiDocs: read.bool('API_DOCS', !production),
    },
    database: {
      url: readDatabaseUrl(read),
      poolSize: read.int('DATABASE_POOL_SIZE', 10, 1, 500),
      timeoutMs: read.int('DATABASE_TIMEOUT_MS', 2000, 100, 60_000),
      sync: read.oneOf('DATABASE_SYNC', 'normal', DATABASE_SYNC_MODES),
    },
    jwt: {
      // Defined unless a problem was reported, and then this config is never returned.
      access: access as AccessSigning,
      issuer,
      // One audience by default: the API this service fronts, named as its issuer.
      audience: read.string('JWT_AUDIENCE') ?? issuer,
      clientId: read.string('JWT_CLIENT_ID') ?? DEFAULT_CLIENT_ID,
      refreshSecret,
      accessTtl,
      refreshTtl: read.int('REFRESH_TOKEN_TTL', 7 * DAY, accessTtl, 365 * DAY),
      refreshReuseGrace: read.int('REFRESH_REUSE_GRACE', 10, 0, 300),
      // Any positive value, shorter or longer than REFRESH_TOKEN_TTL (a short one is how a
      // staging deployment tries it); the ceiling only keeps the dates computed from it sane.
      sessionMaxAge: read.int('SESSION_MAX_AGE', 30 * DAY, 1, 3650 * DAY),
    },
    cookies: readCookies(read),
    metrics: { token: readMetricsToken(read) },
    log: {
      level: read.oneOf('LOG_LEVEL', 'info', LOG_LEVELS),
      readable: readLogFormat(read, nodeEnv),
    },
    redis: {
      url: readRedisUrl(read),
      keyPrefix: read.string('REDIS_KEY_PREFIX') ?? 'auth:',
    },
    throttle: {
      ttl: read.int('THROTTLE_TTL', 900, 1, DAY),
      limit: read.int('THROTTLE_LIMIT', 50, 1, 10_000_000),
      authLimit: read.int('THROTTLE_AUTH_LIMIT', 5, 1, 10_000_000),
    },
    loginBackoff: readLoginBackoff(read),
    security: {
      bcryptCost: read.int('BCRYPT_COST', 10, 4, 15),
      // bcrypt reads 72 bytes at most, so a longer minimum could never be met.
      passwordMinLength: read.int('PASSWORD_MIN_LENGTH', 6, 6, 72),
      hashThreads: read.int('HASH_THREADS', availableParallelism(), 1, 64),
      hashQueueLimit: read.int('HASH_QUEUE_LIMIT', 64 * availableParallelism(), 1, 100_000),
      // Other instances sharing the database learn of a revocation within this many seconds.
      userCacheTtl: read.int('USER_CACHE_TTL', 1, 0, 3600),
      accountEnumerationProtection: read.bool('ACCOUNT_ENUMERATION_PROTECTION', false),
    },
    mail: {
      smtpUrl: readSmtpUrl(read, production),
      outboxDir: resolve(read.string('MAIL_OUTBOX_DIR') ?? join(dataDir, 'mail')),
      from: read.string('MAIL_FROM') ?? 'no-reply@localhost',
      verificationTtl: read.int('EMAIL_VERIFICATION_TTL', DAY, 60, 30 * DAY),
      resetTtl: read.int('PASSWORD_RESET_TTL', 3600, 60, DAY),
      emailChangeTtl: read.int('EMAIL_CHANGE_TTL', 3600, 60, DAY),
      timeoutMs: read.int('SMTP_TIMEOUT_MS', 5000, 100, 60_000),
      recipientLimit: read.int('MAIL_RECIPIENT_LIMIT', 3, 1, 100_000),
      recipientWindow: read.int('MAIL_RECIPIENT_WINDOW', 900, 1, 7 * DAY),
      retrySchedule: readSchedule(read, 'MAIL_RETRY_SCHEDULE', DEFAULT_MAIL_RETRIES),
    },
    mfa: readMfa(read, production, dataDir),
    webauthn: readWebAuthn(read, { publicUrl, appName, appOrigins }),
    emailCode: {
      enabled: read.bool('EMAIL_CODE_LOGIN', true),
      ttl: read.int('EMAIL_CODE_TTL', 600, 60, 3600),
      maxAttempts: read.int('EMAIL_CODE_ATTEMPTS', 5, 1, 20),
    },
    federation: readIdentityProviders(read, production),
    ...hooksAndWebhooks(read, production),
  };
  read.assertValid();
  return config;
}

const DEFAULT_WEBHOOK_RETRIES = '5,300,1800,7200,18000,36000,36000';
const DEFAULT_MAIL_RETRIES = '5,30,120,600,1800,3600';

/** A retry schedule (webhooks, queued mails): seconds, comma-separated, each 1 s to 7 days. */
function readSchedule(read: EnvReader, name: string, fallback: string): readonly number[] {
  const parts = (read.string(name) ?? fallback).split(',').map((part) => part.trim());
  const schedule = parts.map(Number);
  const valid =
    parts.length <= 20 &&
    parts.every((part) => /^\d+$/.test(part)) &&
    schedule.every((seconds) => seconds >= 1 && seconds <= 7 * DAY);
  if (valid) return schedule;
  read.report(name, 'must be at most 20 whole numbers of seconds (1 to 604800), comma-separated');
  return [];
}

/** The blocking hooks' URLs follow the webhooks' rule: one WEBHOOK_ALLOW_HTTP for both. */
function hooksAndWebhooks(
  read: EnvReader,
  production: boolean,
): { hooks: HooksConfig; webhooks: WebhookConfig } {
  const webhooks = readWebhooks(read, production);
  return { hooks: readHooks(read, webhooks.allowHttp), webhooks };
}

function readWebhooks(read: EnvReader, production: boolean): WebhookConfig {
  const allowHttp = read.bool('WEBHOOK_ALLOW_HTTP', false);
  const allowPrivateNetworks = read.bool('WEBHOOK_ALLOW_PRIVATE_NETWORKS', false);
  return {
    timeoutMs: read.int('WEBHOOK_TIMEOUT_MS', 5000, 100, 60_000),
    retrySchedule: readSchedule(read, 'WEBHOOK_RETRY_SCHEDULE', DEFAULT_WEBHOOK_RETRIES),
    // Outside production any address goes: a developer's receiver is on localhost.
    allowHttp: allowHttp || !production,
    allowPrivateNetworks: allowPrivateNetworks || !production,
  };
}

/**
 * JSON wherever a program reads the log (production, tests, CI: the `CI` variable CI services
 * set); readable lines only for a person at a terminal, unless LOG_FORMAT says otherwise.
 */
function readLogFormat(read: EnvReader, nodeEnv: string): LogConfig['readable'] {
  const format = read.oneOf('LOG_FORMAT', 'auto', LOG_FORMATS);
  if (format !== 'auto') return format === 'pretty' ? 'always' : 'never';
  const ci = read.string('CI');
  const inCi = ci !== undefined && !['false', '0'].includes(ci.toLowerCase());
  return nodeEnv === 'production' || nodeEnv === 'test' || inCi ? 'never' : 'on-terminal';
}

/**
 * The key that seals TOTP secrets: 32 bytes, base64 or hex. Required in production (a generated
 * one would be lost with the container, and every second factor with it); generated into the
 * data folder otherwise. Previous keys (comma-separated) still open what they sealed.
 */
function readMfa(read: EnvReader, production: boolean, dataDir: string): MfaConfig {
  const key = (name: string, text: string): Buffer | undefined => {
    const bytes = /^[0-9a-f]{64}$/i.test(text) ? Buffer.from(text, 'hex') : base64(text);
    if (bytes?.length === 32) return bytes;
    read.report(name, 'must be 32 bytes, written in base64 or hex (openssl rand -base64 32)');
    return undefined;
  };
  const given = read.string('MFA_ENCRYPTION_KEY');
  if (given === undefined && production) {
    read.report('MFA_ENCRYPTION_KEY', 'is required when NODE_ENV=production');
  }
  const current = given === undefined ? undefined : key('MFA_ENCRYPTION_KEY', given);
  const previous = (read.string('MFA_ENCRYPTION_PREVIOUS_KEYS') ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean)
    .map((item) => key('MFA_ENCRYPTION_PREVIOUS_KEYS', item) ?? Buffer.alloc(0));
  const roles = (read.string('MFA_REQUIRED_ROLES') ?? '')
    .split(',')
    .map((item) => item.trim().toLowerCase())
    .filter(Boolean);
  const unknown = roles.filter((role) => !(ROLES as readonly string[]).includes(role));
  if (unknown.length > 0) {
    read.report(
      'MFA_REQUIRED_ROLES',
      `must list roles among ${ROLES.join(', ')} (got ${unknown.join(', ')})`,
    );
  }
  return {
    encryptionKey:
      current ??
      (read.isValid('MFA_ENCRYPTION_KEY') && !production
        ? loadOrCreateDevMfaKey(dataDir)
        : Buffer.alloc(0)),
    previousEncryptionKeys: previous,
    stepUpMaxAge: read.int('STEP_UP_MAX_AGE', 600, 10, DAY),
    requiredRoles: [...new Set(roles)],
  };
}

function base64(text: string): Buffer | undefined {
  return /^[A-Za-z0-9+/_-]+={0,2}$/.test(text) ? Buffer.from(text, 'base64') : undefined;
}

/** Read on its own too: the platform is chosen before the app (and the rest of this) is built. */
export function readHttpPlatform(env: RawEnv): HttpPlatform {
  // Not validated here: a bad value is reported when the configuration is loaded, together
  // with every other bad variable; until then the default stands.
  return new EnvReader(env).oneOf('HTTP_PLATFORM', 'express', HTTP_PLATFORMS);
}

/** EdDSA was accepted once; a deployment that still names it is told why it stopped. */
function readAlgorithm(read: EnvReader) {
  if (read.string('JWT_ALGORITHM')?.toLowerCase() === 'eddsa') {
    read.report(
      'JWT_ALGORITHM',
      'cannot be EdDSA any more (jsonwebtoken, under @nestjs/jwt and passport-jwt, has no EdDSA): use ES256',
    );
  }
  return read.oneOf('JWT_ALGORITHM', 'HS256', ACCESS_ALGORITHMS);
}

function readDatabaseUrl(read: EnvReader): string {
  const url = read.string('DATABASE_URL') ?? 'sqlite:./data/auth.sqlite';
  if (!/^(sqlite:.+|mysql:\/\/.+|mariadb:\/\/.+)$/.test(url)) {
    read.report(
      'DATABASE_URL',
      'must be sqlite:<file>, sqlite::memory: or mysql://user:pass@host:3306/db',
    );
  }
  return url;
}

/**
 * The access secret is needed only for HS256; with a key pair it is not required, and not
 * generated either.
 */
function readSecrets(read: EnvReader, production: boolean, dataDir: string, hmacAccess: boolean) {
  let accessSecret = read.string('JWT_ACCESS_SECRET');
  let refreshSecret = read.string('JWT_REFRESH_SECRET');
  for (const [name, value, needed] of [
    ['JWT_ACCESS_SECRET', accessSecret, hmacAccess],
    ['JWT_REFRESH_SECRET', refreshSecret, true],
  ] as const) {
    if (value === undefined && needed && production) {
      read.report(name, 'is required when NODE_ENV=production');
    }
    if (value !== undefined && value.length < MIN_SECRET_LENGTH) {
      read.report(name, `must be at least ${MIN_SECRET_LENGTH} characters long`);
    }
  }
  // The configuration is refused: nothing is generated for it, and these values are never used.
  if (!read.isValid('JWT_ACCESS_SECRET') || !read.isValid('JWT_REFRESH_SECRET')) {
    return { accessSecret, refreshSecret: refreshSecret ?? '' };
  }
  if (refreshSecret === undefined || (hmacAccess && accessSecret === undefined)) {
    const generated = loadOrCreateDevSecrets(dataDir);
    if (hmacAccess) accessSecret ??= generated.accessSecret;
    refreshSecret ??= generated.refreshSecret;
  }
  if (accessSecret === refreshSecret) {
    read.report('JWT_REFRESH_SECRET', 'must differ from JWT_ACCESS_SECRET');
  }
  return { accessSecret, refreshSecret };
}

/**
 * `true` would make Express trust the left-most X-Forwarded-For entry, which the client writes,
 * so every client could pick its own rate-limit bucket. Only hop counts and addresses are taken.
 */
function readTrustProxy(read: EnvReader): TrustProxySetting {
  const raw = read.string('TRUST_PROXY');
  if (raw === undefined || raw.toLowerCase() === 'false') return false;
  if (raw.toLowerCase() === 'true') {
    read.report(
      'TRUST_PROXY',
      'must be a hop count or a list of proxy addresses, not "true" (that trusts any client)',
    );
    return false;
  }
  if (/^\d+$/.test(raw)) return Number(raw);
  const list = raw
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
  try {
    compileProxyList(list);
  } catch {
    read.report(
      'TRUST_PROXY',
      `must be a hop count or addresses, subnets or loopback/linklocal/uniquelocal (got "${raw}")`,
    );
    return false;
  }
  return list;
}

/**
 * The longest wait must fit inside the quiet period that resets the count, or the count would be
 * forgotten while the account waits and the slow-down would start again from the free failures.
 */
function readLoginBackoff(read: EnvReader) {
  const free = read.int('LOGIN_FAILURES_FREE', 5, 1, 1000);
  const baseSeconds = read.int('LOGIN_BACKOFF_BASE', 1, 1, 3600);
  const maxSeconds = read.int('LOGIN_BACKOFF_MAX', 900, 1, DAY);
  const resetSeconds = read.int('LOGIN_FAILURES_RESET', 900, 1, 7 * DAY);
  if (read.isValid('LOGIN_BACKOFF_BASE') && read.isValid('LOGIN_BACKOFF_MAX')) {
    if (maxSeconds < baseSeconds) {
      read.report('LOGIN_BACKOFF_MAX', 'must be at least LOGIN_BACKOFF_BASE');
    }
  }
  if (read.isValid('LOGIN_BACKOFF_MAX') && read.isValid('LOGIN_FAILURES_RESET')) {
    if (resetSeconds < maxSeconds) {
      read.report('LOGIN_FAILURES_RESET', 'must be at least LOGIN_BACKOFF_MAX');
    }
  }
  return { free, baseSeconds, maxSeconds, resetSeconds };
}

/** Browsers drop a `SameSite=None` cookie that is not `Secure`: refuse the pair at boot. */
function readCookies(read: EnvReader) {
  const secure = read.bool('COOKIE_SECURE', true);
  const sameSite = read.oneOf('COOKIE_SAMESITE', 'lax', ['lax', 'strict', 'none'] as const);
  if (sameSite === 'none' && !secure) {
    read.report('COOKIE_SAMESITE', 'can be none only with COOKIE_SECURE=true');
  }
  return { secure, sameSite };
}

/** A guessable token would publish the service's traffic: as long as a JWT secret, or unset. */
function readMetricsToken(read: EnvReader): string | undefined {
  const token = read.string('METRICS_TOKEN');
  if (token !== undefined && token.length < MIN_SECRET_LENGTH) {
    read.report('METRICS_TOKEN', `must be at least ${MIN_SECRET_LENGTH} characters`);
  }
  return token;
}

/** Unset: one instance keeps its rate limits and revocations in process. */
function readRedisUrl(read: EnvReader): string | undefined {
  const url = read.string('REDIS_URL');
  if (url !== undefined && !/^rediss?:\/\/[^/]+/.test(url)) {
    read.report('REDIS_URL', 'must look like redis://[:password@]host:port[/db]');
  }
  return url;
}

/**
 * In production, mail that silently lands in files (holding live tokens) while the API says
 * "sent" is a fault: the outbox must be chosen on purpose there, by setting MAIL_OUTBOX_DIR.
 */
function readSmtpUrl(read: EnvReader, production: boolean): string | undefined {
  const url = read.string('SMTP_URL');
  if (url !== undefined && !/^smtps?:\/\/[^/]+/.test(url)) {
    read.report('SMTP_URL', 'must look like smtp://user:pass@host:port');
  }
  if (url === undefined && production && read.string('MAIL_OUTBOX_DIR') === undefined) {
    read.report(
      'SMTP_URL',
      'is required when NODE_ENV=production (or set MAIL_OUTBOX_DIR to keep mail in files)',
    );
  }
  return url;
}
