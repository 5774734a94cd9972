/**
 * Typed configuration sections. Each class is also the DI token for its section, so a service asks
 * for `JwtConfig` and gets exactly the values it needs, validated once at boot by `loadConfig`.
 */
export type TrustProxySetting = false | number | string[];

export class AppConfig {
  readonly nodeEnv!: string;
  readonly production!: boolean;
  readonly port!: number;
  /** Address to listen on; unset: every interface, IPv6 and IPv4 (IPv4 only where IPv6 is off). */
  readonly host!: string | undefined;
  readonly publicUrl!: string;
  readonly appName!: string;
  readonly corsOrigins!: readonly string[];
  readonly appOrigins!: readonly string[];
  readonly trustProxy!: TrustProxySetting;
  readonly dataDir!: string;
}

export class DatabaseConfig {
  readonly url!: string;
  readonly poolSize!: number;
}

export class JwtConfig {
  readonly accessSecret!: string;
  readonly refreshSecret!: string;
  readonly accessTtl!: number;
  readonly refreshTtl!: number;
  readonly refreshReuseGrace!: number;
}

export type SameSite = 'lax' | 'strict' | 'none';

export class CookieConfig {
  readonly secure!: boolean;
  readonly sameSite!: SameSite;
}

export class ThrottleConfig {
  readonly ttl!: number;
  readonly limit!: number;
  readonly authLimit!: number;
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
}

export class MailConfig {
  readonly smtpUrl?: string;
  readonly outboxDir!: string;
  readonly from!: string;
  readonly verificationTtl!: number;
  readonly resetTtl!: number;
  /** Connection, greeting and DNS timeout for SMTP; the socket may idle twice as long. */
  readonly timeoutMs!: number;
}

export interface Config {
  app: AppConfig;
  database: DatabaseConfig;
  jwt: JwtConfig;
  cookies: CookieConfig;
  throttle: ThrottleConfig;
  security: SecurityConfig;
  mail: MailConfig;
}

/** Section name in the validated config → its class token. */
export const CONFIG_SECTIONS = {
  app: AppConfig,
  database: DatabaseConfig,
  jwt: JwtConfig,
  cookies: CookieConfig,
  throttle: ThrottleConfig,
  security: SecurityConfig,
  mail: MailConfig,
} as const;
