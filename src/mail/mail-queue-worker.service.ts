import {
  BeforeApplicationShutdown,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnApplicationShutdown,
} from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { LessThan, Repository } from 'typeorm';
import { PurgeSchedule, purgeInBatches } from '../database/batch-purge';
import { Database } from '../database/database.service';
import { BATCH, MailQueue } from './mail-queue.service';
import { QueuedMail } from './queued-mail.entity';

/** How often an instance looks for due retries (and other instances' orphans). */
const POLL_MS = 1000;
const PURGE_EVERY_MS = 10 * 60_000;
/** Finished mails (their payload already blanked) stay this long for an operator's queries. */
const KEEP_FINISHED_MS = 7 * 86_400_000;

/**
 * The queue's retries, one loop per instance: every POLL_MS it claims the due mails (a batch at a
 * time, while there are full batches) and sends them. A shutdown claims nothing more and waits
 * for the batch in hand; a claim left unsent by a crash is due again once its lease ends.
 */
@Injectable()
export class MailQueueWorker
  implements OnApplicationBootstrap, BeforeApplicationShutdown, OnApplicationShutdown
{
  private readonly logger = new Logger('MailQueue');
  private readonly purges = new PurgeSchedule(this.logger);
  private running = false;
  private round: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly database: Database,
    private readonly queue: MailQueue,
    @InjectRepository(QueuedMail) private readonly rows: Repository<QueuedMail>,
  ) {}

  onApplicationBootstrap(): void {
    this.running = true;
    this.schedule();
    this.purges.every(PURGE_EVERY_MS, () => this.purge());
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stop();
    await this.round;
  }

  onApplicationShutdown(): void {
    this.stop();
  }

  /** Finished mails older than KEEP_FINISHED_MS; returns how many went. */
  purge(now = new Date()): Promise<number> {
    return purgeInBatches(this.database, this.rows, {
      finishedAt: LessThan(new Date(now.getTime() - KEEP_FINISHED_MS)),
    });
  }

  private stop(): void {
    this.running = false;
    clearTimeout(this.timer);
    this.purges.stop();
  }

  private schedule(): void {
    if (!this.running) return;
    this.timer = setTimeout(() => {
      this.round = this.poll().finally(() => this.schedule());
    }, POLL_MS);
    this.timer.unref();
  }

  private async poll(): Promise<void> {
    try {
      while (this.running && (await this.queue.send()).length === BATCH);
    } catch (error) {
      this.logger.warn(
        `Queued mails not claimed: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
}
