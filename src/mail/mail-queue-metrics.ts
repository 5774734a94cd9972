import { Injectable } from '@nestjs/common';
import { Counter, Gauge } from 'prom-client';
import { Database } from '../database/database.service';
import { Metrics } from '../metrics/metrics.service';

export const QUEUED_MAIL_KINDS = [
  'verification',
  'password-changed',
  'mfa-enabled',
  'mfa-disabled',
  'identity-linked',
  'email-changed',
] as const;
export type QueuedMailKind = (typeof QUEUED_MAIL_KINDS)[number];

/** `retrying`: the attempt failed and waits for its next; `failed`: it was the last. */
export const QUEUE_OUTCOMES = ['queued', 'sent', 'retrying', 'failed', 'expired'] as const;
export type QueueOutcome = (typeof QUEUE_OUTCOMES)[number];

/**
 * The mail queue in Prometheus (docs/operating.md has the alert), beside auth_emails_total (one
 * count per SMTP attempt): mails queued and what became of each attempt by kind, and, read from
 * the database when scraped, the mails waiting, the same on every instance.
 */
@Injectable()
export class MailQueueMetrics {
  private readonly outcomes: Counter;

  constructor(metrics: Metrics, database: Database) {
    const registers = [metrics.registry];
    this.outcomes = new Counter({
      name: 'auth_mail_queue_total',
      help: 'Queued mails (queued) and their attempts (sent, retrying, failed, expired), by kind',
      labelNames: ['kind', 'outcome'],
      registers,
    });
    for (const kind of QUEUED_MAIL_KINDS) {
      for (const outcome of QUEUE_OUTCOMES) this.outcomes.inc({ kind, outcome }, 0);
    }
    new Gauge({
      name: 'auth_mail_queue_depth',
      help: 'Queued mails waiting to be sent (pending)',
      registers,
      async collect() {
        try {
          const [row] = await database.run((manager) =>
            manager.query<Array<{ depth: number | string }>>(
              "SELECT COUNT(*) AS depth FROM mail_queue WHERE status = 'pending'",
            ),
          );
          this.set(Number(row?.depth ?? 0));
        } catch {
          // A database that does not answer leaves the gauge at its last value.
        }
      },
    });
  }

  count(kind: QueuedMailKind, outcome: QueueOutcome): void {
    this.outcomes.inc({ kind, outcome });
  }
}
