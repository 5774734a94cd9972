import { Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { MailConfig } from '../config/config.sections';
import { Database } from '../database/database.service';
import { MailService } from '../mail/mail.service';
import { RedisService } from '../redis/redis.service';
import { BackgroundCheck } from '../common/background-check';

export type Checks = Record<string, 'up' | 'down'>;

/** A probe answers within 1 s: a check still running past this is taken as a hang. */
const LATE_MS = 500;
/** An SMTP check opens a connection to the server: not every second. */
const SMTP_INTERVAL_MS = 5000;

/**
 * What readiness reports, kept up to date in the background: the database from its own probe
 * (`Database.available`: once a second, and at once when a call misses its deadline), SMTP every
 * few seconds, Redis from its connection state. A readiness request does no work of its own, so a load
 * balancer (or anyone) probing it costs nothing and never waits on a dependency.
 */
@Injectable()
export class Readiness implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly smtp: BackgroundCheck | undefined;

  constructor(
    private readonly db: Database,
    private readonly redis: RedisService,
    mail: MailService,
    mailConfig: MailConfig,
  ) {
    if (mailConfig.smtpUrl) {
      this.smtp = new BackgroundCheck(() => mail.reachable(), SMTP_INTERVAL_MS, LATE_MS);
    }
  }

  onApplicationBootstrap(): void {
    this.smtp?.start();
  }

  onApplicationShutdown(): void {
    this.smtp?.stop();
  }

  checks(): Checks {
    const checks: Checks = { database: this.db.available ? 'up' : 'down' };
    if (this.redis.enabled) checks.redis = this.redis.ready ? 'up' : 'down';
    if (this.smtp) checks.smtp = this.smtp.isUp ? 'up' : 'down';
    return checks;
  }
}
