import {
  BeforeApplicationShutdown,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnApplicationShutdown,
} from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { LessThan, Repository } from 'typeorm';
import { WebhookConfig } from '../config/config.sections';
import { PurgeSchedule, purgeInBatches } from '../database/batch-purge';
import { Database } from '../database/database.service';
import { AttemptResult, Claimed, WebhookClaims } from './webhook-claims';
import { WebhookDelivery } from './webhook-delivery.entity';
import { WebhookMetrics } from './webhook-metrics';
import { WebhookSender } from './webhook-sender';

/** An idle instance looks for due deliveries (retries, other instances' orphans) this often. */
const POLL_MS = 1000;
/** Claims in a row before the loop waits for its timer again. */
const MAX_ROUNDS = 20;
/** Deliveries of one endpoint in flight at once from one instance. */
export const PER_ENDPOINT = 8;
/** Attempts recorded in one transaction at most. */
const RECORD_BATCH = 100;
const PURGE_EVERY_MS = 10 * 60_000;
/** Finished deliveries (and their attempts) stay this long for the log and replays. */
const KEEP_FINISHED_MS = 7 * 86_400_000;

/**
 * The outbox's sending half, one per instance: a loop claims due deliveries (WebhookClaims) and
 * sends each without waiting for it, at most PER_ENDPOINT of one endpoint at a time, so a
 * receiver that hangs holds only its own deliveries, and no request ever waits on a receiver.
 * A commit that stored deliveries, and each send that ends, wakes the loop at once; otherwise it
 * polls. A shutdown claims nothing more and waits for the sends in flight (each ends within
 * WEBHOOK_TIMEOUT_MS) to be recorded before the database closes; a claim left unrecorded (a
 * crash) is due again once its lease ends: at least once, never lost.
 */
@Injectable()
export class WebhookDispatcher
  implements OnApplicationBootstrap, BeforeApplicationShutdown, OnApplicationShutdown
{
  private readonly logger = new Logger('Webhooks');
  private readonly purges = new PurgeSchedule(this.logger);
  private readonly inFlight = new Map<string, number>();
  private readonly sending = new Set<Promise<void>>();
  private polled: Promise<void> = Promise.resolve();
  /** Attempts made and not yet recorded, with what each send waits on. */
  private readonly unrecorded: Array<{
    delivery: Claimed;
    result: AttemptResult;
    done: () => void;
  }> = [];
  private recording = false;
  private running = false;
  private polling = false;
  private pollAgain = false;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly database: Database,
    private readonly claims: WebhookClaims,
    private readonly sender: WebhookSender,
    private readonly metrics: WebhookMetrics,
    private readonly config: WebhookConfig,
    @InjectRepository(WebhookDelivery) private readonly deliveries: Repository<WebhookDelivery>,
  ) {}

  onApplicationBootstrap(): void {
    this.running = true;
    this.wake();
    this.purges.every(PURGE_EVERY_MS, () => this.purge());
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.running = false;
    clearTimeout(this.timer);
    this.purges.stop();
    await this.polled;
    while (this.sending.size > 0) await Promise.allSettled([...this.sending]);
  }

  onApplicationShutdown(): void {
    this.running = false;
    clearTimeout(this.timer);
    this.purges.stop();
  }

  /** Due deliveries may be waiting: claim them now rather than at the next poll. */
  wake(): void {
    if (!this.running) return;
    if (this.polling) {
      this.pollAgain = true;
      return;
    }
    clearTimeout(this.timer);
    this.polling = true;
    // Sends that end in the same turn of the event loop share one claim.
    this.polled = new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.poll());
  }

  /** Finished deliveries older than KEEP_FINISHED_MS; returns how many went. */
  purge(now = new Date()): Promise<number> {
    return purgeInBatches(this.database, this.deliveries, {
      finishedAt: LessThan(new Date(now.getTime() - KEEP_FINISHED_MS)),
    });
  }

  private async poll(): Promise<void> {
    this.polling = true;
    try {
      for (let round = 0; round < MAX_ROUNDS && this.running; round++) {
        this.pollAgain = false;
        const claimed = await this.claims.claim(new Map(this.inFlight), PER_ENDPOINT);
        for (const delivery of claimed) this.start(delivery);
        if (claimed.length === 0 && !this.pollAgain) break;
      }
    } catch (error) {
      this.logger.warn(`Webhook deliveries not claimed: ${message(error)}`);
    } finally {
      this.polling = false;
      if (this.running) {
        this.timer = setTimeout(() => this.wake(), POLL_MS);
        this.timer.unref();
      }
    }
  }

  private start(delivery: Claimed): void {
    this.inFlight.set(delivery.webhookId, (this.inFlight.get(delivery.webhookId) ?? 0) + 1);
    const sending: Promise<void> = this.deliver(delivery).finally(() => {
      this.sending.delete(sending);
      const left = (this.inFlight.get(delivery.webhookId) ?? 1) - 1;
      if (left > 0) this.inFlight.set(delivery.webhookId, left);
      else this.inFlight.delete(delivery.webhookId);
      this.wake();
    });
    this.sending.add(sending);
  }

  private async deliver(delivery: Claimed): Promise<void> {
    const result = await this.sender.send(delivery);
    await new Promise<void>((done) => {
      this.unrecorded.push({ delivery, result, done });
      void this.record();
    });
  }

  /** The attempts made meanwhile, a batch per transaction, one transaction at a time. */
  private async record(): Promise<void> {
    if (this.recording) return;
    this.recording = true;
    try {
      while (this.unrecorded.length > 0) {
        const batch = this.unrecorded.splice(0, RECORD_BATCH);
        try {
          const outcomes = await this.claims.record(batch, this.config.retrySchedule);
          outcomes.forEach((outcome, i) => {
            if (outcome) this.metrics.attempt(batch[i].delivery.webhookId, outcome);
          });
        } catch (error) {
          // Their leases end and they are sent again: at least once.
          this.logger.warn(`${batch.length} webhook attempts not recorded: ${message(error)}`);
        } finally {
          for (const item of batch) item.done();
        }
      }
    } finally {
      this.recording = false;
    }
  }
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
