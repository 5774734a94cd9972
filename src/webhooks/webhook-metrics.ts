import { Injectable } from '@nestjs/common';
import { Counter, Gauge } from 'prom-client';
import { Database } from '../database/database.service';
import { Metrics } from '../metrics/metrics.service';
import { rawDate } from './webhook-ids';

/** An attempt's outcome: `retrying` failed and waits for its next try, `failed` was the last. */
export const ATTEMPT_OUTCOMES = ['delivered', 'retrying', 'failed'] as const;
export type AttemptOutcome = (typeof ATTEMPT_OUTCOMES)[number];

/**
 * The outbox in Prometheus (docs/webhooks.md has the alert): attempts by outcome, failed attempts
 * per endpoint, and, read from the database when scraped, the deliveries waiting and the age of
 * the oldest one, the same on every instance.
 */
@Injectable()
export class WebhookMetrics {
  private readonly attempts: Counter;
  private readonly endpointFailures: Counter;

  constructor(metrics: Metrics, database: Database) {
    const registers = [metrics.registry];
    this.attempts = new Counter({
      name: 'auth_webhook_deliveries_total',
      help: 'Webhook delivery attempts, by outcome',
      labelNames: ['outcome'],
      registers,
    });
    for (const outcome of ATTEMPT_OUTCOMES) this.attempts.inc({ outcome }, 0);
    this.endpointFailures = new Counter({
      name: 'auth_webhook_endpoint_failures_total',
      help: 'Failed webhook delivery attempts, by endpoint',
      labelNames: ['webhook_id'],
      registers,
    });
    let backlog: Promise<Backlog | undefined> | undefined;
    // One query serves both gauges of a scrape.
    const read = () =>
      (backlog ??= readBacklog(database).finally(() => setTimeout(() => (backlog = undefined))));
    new Gauge({
      name: 'auth_webhook_queue_depth',
      help: 'Webhook deliveries waiting to be sent (pending)',
      registers,
      async collect() {
        const now = await read();
        if (now) this.set(now.depth);
      },
    });
    new Gauge({
      name: 'auth_webhook_oldest_pending_seconds',
      help: 'Age of the oldest pending webhook delivery, 0 when none waits',
      registers,
      async collect() {
        const now = await read();
        if (now) this.set(now.oldest);
      },
    });
  }

  attempt(webhookId: string, outcome: AttemptOutcome): void {
    this.attempts.inc({ outcome });
    if (outcome !== 'delivered') this.endpointFailures.inc({ webhook_id: webhookId });
  }
}

interface Backlog {
  depth: number;
  oldest: number;
}

/** A database that does not answer leaves the gauges at their last values. */
async function readBacklog(database: Database): Promise<Backlog | undefined> {
  try {
    const [row] = await database.run((manager) =>
      manager.query<Array<{ depth: number | string; oldest: Date | string | null }>>(
        'SELECT COUNT(*) AS depth, MIN(created_at) AS oldest FROM webhook_deliveries' +
          " WHERE status = 'pending'",
      ),
    );
    const oldest = rawDate(row?.oldest ?? null);
    return {
      depth: Number(row?.depth ?? 0),
      oldest: oldest ? Math.max(0, (Date.now() - oldest.getTime()) / 1000) : 0,
    };
  } catch {
    return undefined;
  }
}
