/**
 * Typed configuration sections. Each class is also the DI token for its section, so a service asks
 * for `JwtConfig` and gets exactly the values it needs, validated once at boot by `loadConfig`.
 */
import { AsymmetricAlgorithm, SigningKey, VerificationKey } from './signing-keys';

export type TrustProxySetting = false | number | string[];

export const HTTP_PLATFORMS = ['express', 'fastify'] as const;
export type HttpPlatform = (typeof HTTP_PLATFORMS)[number];

export class AppConfig {
  readonly nodeEnv!: string;
  readonly production!: boolean;
  readonly port!: number;
  /** Express by default; Fastify runs the same service when HTTP_PLATFORM=fastify. */
  readonly httpPlatform!: HttpPlatform;
  /** Address to listen on; unset: every interface, IPv6 and IPv4 (IPv4 only where IPv6 is off). */
  readonly host!: string | undefined;
  readonly publicUrl!: string;
  readonly appName!: string;
  readonly corsOrigins!: readonly string[];
  readonly appOrigins!: readonly string[];
  readonly trustProxy!: TrustProxySetting;
  readonly dataDir!: string;
  /** Swagger UI at /api/v1/docs and the OpenAPI document at /api/docs-json. */
  readonly apiDocs!: boolean;
}

/** SQLite's `synchronous` for the embedded store: when a commit is synced to the disk. */
export const DATABASE_SYNC_MODES = ['normal', 'full'] as const;
export type DatabaseSync = (typeof DATABASE_SYNC_MODES)[number];

export class DatabaseConfig {
  readonly url!: string;
  readonly poolSize!: number;
  /** Deadline of any database call (pool wait, query, transaction), in milliseconds. */
  readonly timeoutMs!: number;
  /** The embedded store only: `full` syncs every commit, `normal` at checkpoints. */
  readonly sync!: DatabaseSync;
}

/**
 * How access tokens are signed: with a shared secret (HS256, verifiable only by this service), or
 * with a key pair whose public half other services fetch from the JWKS endpoint.
 */
export type AccessSigning =
  | { readonly algorithm: 'HS256'; readonly secret: string }
  | {
      readonly algorithm: AsymmetricAlgorithm;
      readonly current: SigningKey;
      /** Retired keys whose tokens may still be live: they verify and are published, never sign. */
      readonly previous: readonly VerificationKey[];
      /** The generated key file outside production; undefined when the keys are configured. */
      readonly devKeysFile: string | undefined;
    };

export class JwtConfig {
  readonly access!: AccessSigning;
  /** `iss` of every access token (RFC 9068): this service, as resource servers name it. */
  readonly issuer!: string;
  /** `aud` of every access token: the resource servers that accept them. */
  readonly audience!: string;
  /** `client_id` of every access token (RFC 9068): the client the tokens were issued to. */
  readonly clientId!: string;
  /** Refresh tokens are always HS256: only this service ever verifies them. */
  readonly refreshSecret!: string;
  readonly accessTtl!: number;
  readonly refreshTtl!: number;
  readonly refreshReuseGrace!: number;
  /**
   * Seconds from a login after which its session ends, however often it was refreshed: no token
   * of it lives longer. Independent of `refreshTtl`, which only bounds the time between refreshes.
   */
  readonly sessionMaxAge!: number;
}

export type SameSite = 'lax' | 'strict' | 'none';

export class CookieConfig {
  readonly secure!: boolean;
  readonly sameSite!: SameSite;
}

/** Shared state for several instances: rate-limit counters and revocation notices. */
export class RedisConfig {
  /** Unset: everything stays in process (one instance). */
  readonly url!: string | undefined;
  /** Before every key and channel name, so several services can share one Redis. */
  readonly keyPrefix!: string;
}

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** LOG_FORMAT: `auto` is readable lines on a developer's terminal, JSON anywhere else. */
export const LOG_FORMATS = ['auto', 'json', 'pretty'] as const;

export class LogConfig {
  /** pino's level; `info` logs one line per request, `silent` nothing. */
  readonly level!: LogLevel;
  /**
   * Readable lines (pino-pretty) instead of JSON: always (LOG_FORMAT=pretty), never (`json`, or
   * `auto` in production, tests and CI), or when standard output is a terminal (`auto` else).
   */
  readonly readable!: 'always' | 'never' | 'on-terminal';
}

export class MetricsConfig {
  /** Unset: `/metrics` answers 404. Set: a scraper must send it as a bearer token. */
  readonly token!: string | undefined;
}

export class ThrottleConfig {
  readonly ttl!: number;
  readonly limit!: number;
  readonly authLimit!: number;
}

/**
 * Per-account slow-down of failed logins, across every address and (with REDIS_URL) instance:
 * `free` failures in a row cost nothing; after the f-th, the account waits
 * min(`maxSeconds`, `baseSeconds` × 2^(f − `free`)). The count is forgotten `resetSeconds` after
 * the last attempt, or at once by a correct password.
 */
export class LoginBackoffConfig {
  readonly free!: number;
  readonly baseSeconds!: number;
  readonly maxSeconds!: number;
  readonly resetSeconds!: number;
}

export class SecurityConfig {
  readonly bcryptCost!: number;
  readonly passwordMinLength!: number;
  /** Worker threads hashing passwords. */
  readonly hashThreads!: number;
  /** Hash jobs that may wait for a thread before login and register answer 503. */
  readonly hashQueueLimit!: number;
  /** Seconds a user (and their token version) may be served from memory; 0 turns it off. */
  readonly userCacheTtl!: number;
  /**
   * ACCOUNT_ENUMERATION_PROTECTION: the email links and registration answer alike whether or not
   * an address has an account, and mail after answering. Off: the contract's answers.
   */
  readonly accountEnumerationProtection!: boolean;
}

export class MailConfig {
  readonly smtpUrl?: string;
  readonly outboxDir!: string;
  readonly from!: string;
  readonly verificationTtl!: number;
  readonly resetTtl!: number;
  /** Seconds a change-of-email link (sent to the new address) stays valid. */
  readonly emailChangeTtl!: number;
  /** Connection, greeting and DNS timeout for SMTP; the socket may idle twice as long. */
  readonly timeoutMs!: number;
  /** Mails of one kind one address may get in any `recipientWindow` seconds. */
  readonly recipientLimit!: number;
  readonly recipientWindow!: number;
  /** MAIL_RETRY_SCHEDULE: seconds before each retry of a queued mail; after the last, `failed`. */
  readonly retrySchedule!: readonly number[];
}

/** The second factor and step-up. */
export class MfaConfig {
  /** AES-256-GCM key that seals TOTP secrets (MFA_ENCRYPTION_KEY). */
  readonly encryptionKey!: Buffer;
  /** Keys that sealed secrets before a rotation: they still open them, never seal. */
  readonly previousEncryptionKeys!: readonly Buffer[];
  /** Seconds a sign-in counts as recent for the routes that need one (step-up). */
  readonly stepUpMaxAge!: number;
  /** Roles whose users must have a second factor before they may do anything else. */
  readonly requiredRoles!: readonly string[];
}

/** Passkeys (WebAuthn): the relying party the browser binds every credential to. */
export class WebAuthnConfig {
  /** WEBAUTHN_RP_ID: a host name, the page's host or a parent domain of it; never a port. */
  readonly rpId!: string;
  /** WEBAUTHN_RP_NAME: what the browser and the authenticator show beside the account. */
  readonly rpName!: string;
  /** WEBAUTHN_ORIGINS: the pages whose ceremonies are accepted (clientDataJSON's `origin`). */
  readonly origins!: readonly string[];
}

/** Signing in with a one-time code (and link) by email. */
export class EmailCodeConfig {
  /** EMAIL_CODE_LOGIN: off, both routes answer 404 as unknown ones do. */
  readonly enabled!: boolean;
  /** Seconds a mailed code (and its link) stays valid. */
  readonly ttl!: number;
  /** Wrong codes one mailed code takes before it is dead, its link with it. */
  readonly maxAttempts!: number;
}

/** Webhook deliveries (docs/webhooks.md). */
export class WebhookConfig {
  /** WEBHOOK_TIMEOUT_MS: a receiver that has not answered 2xx within this failed the attempt. */
  readonly timeoutMs!: number;
  /** WEBHOOK_RETRY_SCHEDULE: seconds before each retry; after the last one, `failed`. */
  readonly retrySchedule!: readonly number[];
  /** WEBHOOK_ALLOW_HTTP: production accepts `http://` endpoints too. */
  readonly allowHttp!: boolean;
  /** WEBHOOK_ALLOW_PRIVATE_NETWORKS: production sends to loopback and private addresses too. */
  readonly allowPrivateNetworks!: boolean;
}

export const PROVIDER_TYPES = ['oidc', 'google', 'microsoft', 'github'] as const;
export type ProviderType = (typeof PROVIDER_TYPES)[number];

/** One identity provider of AUTH_PROVIDERS, checked at boot. */
export interface IdentityProvider {
  /** In the routes (`/auth/providers/:id/…`) and stored with each identity: never rename it. */
  readonly id: string;
  readonly type: ProviderType;
  /** What the sign-in button says. */
  readonly name: string;
  /** OpenID Connect discovery's issuer; none for GitHub (plain OAuth 2). */
  readonly issuer: string | undefined;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly scopes: readonly string[];
  /** Lower-case email domains this provider signs in (enterprise SSO). */
  readonly domains: readonly string[];
  /** Password logins of addresses in `domains` are refused (403 SSO_REQUIRED). */
  readonly ssoRequired: boolean;
  /**
   * The slug of the organization whose member (role `member`) each person signing in through it
   * becomes; with `domains`, only accounts whose verified address is in them.
   */
  readonly organization: string | undefined;
  /** GitHub's OAuth 2 addresses (overridable outside production, for tests). */
  readonly github: { authorization: string; token: string; api: string } | undefined;
}

/** Signing in with identity providers (AUTH_PROVIDERS); none configured: the routes list none. */
export class FederationConfig {
  readonly providers!: readonly IdentityProvider[];
}

export const HOOK_FAILURE_MODES = ['closed', 'open'] as const;
export type HookFailureMode = (typeof HOOK_FAILURE_MODES)[number];

/** The blocking hooks called over HTTP (docs/hooks.md); in-process ones need none of this. */
export class HooksConfig {
  /** HOOK_BEFORE_USER_CREATED: asked before every new account; unset, none is asked. */
  readonly beforeUserCreatedUrl!: string | undefined;
  /** HOOK_CUSTOM_ACCESS_TOKEN: asked for claims whenever an access token is issued. */
  readonly customAccessTokenUrl!: string | undefined;
  /** HOOK_SECRET's key (the bytes after `whsec_`); required when a URL is set. */
  readonly secret!: Buffer | undefined;
  readonly timeoutMs!: number;
  /** `closed`: a failed or late hook refuses the request (503); `open`: it is skipped. */
  readonly failure!: HookFailureMode;
}

export interface Config {
  app: AppConfig;
  database: DatabaseConfig;
  jwt: JwtConfig;
  cookies: CookieConfig;
  redis: RedisConfig;
  metrics: MetricsConfig;
  log: LogConfig;
  throttle: ThrottleConfig;
  loginBackoff: LoginBackoffConfig;
  security: SecurityConfig;
  mail: MailConfig;
  mfa: MfaConfig;
  webauthn: WebAuthnConfig;
  emailCode: EmailCodeConfig;
  federation: FederationConfig;
  hooks: HooksConfig;
  webhooks: WebhookConfig;
}

/** Section name in the validated config → its class token. */
export const CONFIG_SECTIONS = {
  app: AppConfig,
  database: DatabaseConfig,
  jwt: JwtConfig,
  cookies: CookieConfig,
  redis: RedisConfig,
  metrics: MetricsConfig,
  log: LogConfig,
  throttle: ThrottleConfig,
  loginBackoff: LoginBackoffConfig,
  security: SecurityConfig,
  mail: MailConfig,
  mfa: MfaConfig,
  webauthn: WebAuthnConfig,
  emailCode: EmailCodeConfig,
  federation: FederationConfig,
  hooks: HooksConfig,
  webhooks: WebhookConfig,
} as const;
