import { Injectable, Logger } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { randomBytes } from 'node:crypto';
import { EntityManager, Repository } from 'typeorm';
import { MailConfig } from '../config/config.sections';
import { Database } from '../database/database.service';
import { leaseDue, marks } from '../database/due-rows';
import { SecretBox } from '../common/crypto/secret-box';
import { MailQueueMetrics, QueueOutcome, QueuedMailKind } from './mail-queue-metrics';
import { MailDeliveryError, MailService, NoticeMail, TokenMail } from './mail.service';
import { QueuedMail } from './queued-mail.entity';

/** What renders a queued mail at send time; `ttl`s are recomputed from `expiresAt` then. */
export type MailToQueue =
  | { kind: 'verification'; message: TokenMail }
  | { kind: Exclude<QueuedMailKind, 'verification'>; message: NoticeMail };

/** What one attempt came to, and the transport's reason when SMTP did not take the mail. */
export interface Attempt {
  outcome: QueueOutcome;
  error: string | null;
}

/** A claim outlives the SMTP timeouts of one attempt (connect, greeting, socket) by this much. */
const LEASE_MARGIN_MS = 10_000;
/** Due mails one claim takes. */
export const BATCH = 20;

/**
 * The mails the contract lets fail quietly, through a durable outbox: written in the transaction
 * of the change they tell of (none for one that rolled back), then sent by a first attempt the
 * caller makes once it has committed (`attempt`) and, if SMTP refused it, by MailQueueWorker
 * after each pause of MAIL_RETRY_SCHEDULE, until SMTP takes it, the schedule ends (`failed`) or
 * its link expires (`expired`, never sent). The payload, with its token, is sealed by SecretBox
 * and blanked once the mail is finished: a copy of the database holds no live link in clear.
 */
@Injectable()
export class MailQueue {
  private readonly logger = new Logger('MailQueue');

  constructor(
    private readonly database: Database,
    private readonly box: SecretBox,
    private readonly mail: MailService,
    private readonly config: MailConfig,
    private readonly metrics: MailQueueMetrics,
    @InjectRepository(QueuedMail) private readonly rows: Repository<QueuedMail>,
  ) {}

  /** Stores `mail` in `manager`'s transaction; its link (if any) dies at `expiresAt`. */
  async queue(manager: EntityManager, mail: MailToQueue, expiresAt?: Date): Promise<string> {
    const now = new Date();
    const id = `mail_${randomBytes(15).toString('base64url')}`;
    await manager.withRepository(this.rows).insert({
      id,
      kind: mail.kind,
      payload: this.box.seal(JSON.stringify(mail.message)),
      status: 'pending',
      attempts: 0,
      nextAttemptAt: now,
      claim: null,
      expiresAt: expiresAt ?? null,
      lastError: null,
      createdAt: now,
      finishedAt: null,
    });
    this.database.afterCommit(manager, () => this.metrics.count(mail.kind, 'queued'));
    return id;
  }

  /** `queue`, and the first attempt once the transaction has committed (before the answer). */
  async queueAndSend(manager: EntityManager, mail: MailToQueue, expiresAt?: Date): Promise<void> {
    const id = await this.queue(manager, mail, expiresAt);
    this.database.afterCommit(manager, () => this.attempt(id).then(() => undefined));
  }

  /**
   * The first attempt at mail `id`, once its transaction has committed: null if SMTP took it (or
   * another worker has it), else why not (the transport's reason, for the caller's log line).
   * It never throws: the change it tells of has committed and the mail is queued, so a database
   * that stops answering now leaves the mail to MailQueueWorker instead of failing the request
   * (a 503 would say the change was not made).
   */
  async attempt(id: string): Promise<string | null> {
    try {
      const [attempt] = await this.send([id]);
      return attempt && attempt.outcome !== 'sent' ? (attempt.error ?? attempt.outcome) : null;
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      this.logger.warn(`Queued mail ${id} not attempted yet (${reason}); the queue retries it`);
      return reason;
    }
  }

  /** Claims due mails (those read as due among `ids`, or the oldest due) and sends them. */
  async send(ids?: readonly string[]): Promise<Attempt[]> {
    const claimed = await this.claim(ids);
    return Promise.all(claimed.map((row) => this.deliver(row)));
  }

  private claim(ids: readonly string[] | undefined): Promise<QueuedMail[]> {
    return this.database.transaction(async (manager) => {
      const now = new Date();
      const due: Array<{ id: string }> = await manager.query(
        "SELECT id FROM mail_queue WHERE status = 'pending' AND next_attempt_at <= ?" +
          (ids ? ` AND id IN (${marks(ids)})` : '') +
          ` ORDER BY next_attempt_at LIMIT ${BATCH}`,
        [this.database.sqlDate(now), ...(ids ?? [])],
      );
      const lease = leaseDue(
        this.database,
        manager,
        'mail_queue',
        due.map((row) => row.id),
        now,
        this.config.timeoutMs * 3 + LEASE_MARGIN_MS,
      );
      const { claim, ids: leased } = await lease;
      if (leased.length === 0) return [];
      const rows = await manager.withRepository(this.rows).findBy(leased.map((id) => ({ id })));
      return rows.filter((row) => row.claim === claim);
    });
  }

  private async deliver(row: QueuedMail): Promise<Attempt> {
    const kind = row.kind as QueuedMailKind;
    const now = new Date();
    let error: string | null = null;
    if (row.expiresAt && row.expiresAt <= now) {
      return { outcome: await this.record(row, kind, 'expired', null), error: null };
    }
    try {
      // The life the mail states: the whole one at the first attempt, what is left at a retry.
      const left = row.expiresAt ? Math.floor((row.expiresAt.getTime() - now.getTime()) / 1000) : 0;
      await this.render(kind, this.box.open(row.payload), row.attempts === 0 ? undefined : left);
    } catch (failure) {
      error = failure instanceof MailDeliveryError ? failure.reason : 'unknown error';
    }
    const pause = this.config.retrySchedule[row.attempts];
    const outcome: QueueOutcome =
      error === null ? 'sent' : pause === undefined ? 'failed' : 'retrying';
    return { outcome: await this.record(row, kind, outcome, error, pause), error };
  }

  private render(kind: QueuedMailKind, payload: string, left: number | undefined): Promise<void> {
    if (kind === 'verification') {
      const message = JSON.parse(payload) as TokenMail;
      return this.mail.sendVerificationEmail({ ...message, ttl: left ?? message.ttl });
    }
    const parsed = JSON.parse(payload) as Omit<NoticeMail, 'at'> & { at: string };
    const message: NoticeMail = { ...parsed, at: new Date(parsed.at) };
    switch (kind) {
      case 'password-changed':
        return this.mail.sendPasswordChangedNotice(message);
      case 'mfa-enabled':
      case 'mfa-disabled':
        return this.mail.sendMfaNotice(kind, message);
      case 'identity-linked':
        return this.mail.sendIdentityLinkedNotice({
          ...message,
          providerName: message.providerName ?? '',
        });
      case 'email-changed':
        return this.mail.sendEmailChangedNotice({
          ...message,
          undo: message.undo && { token: message.undo.token, ttl: left ?? message.undo.ttl },
        });
    }
  }

  /** Written only while the claim is still this worker's; a finished mail keeps no payload. */
  private async record(
    row: QueuedMail,
    kind: QueuedMailKind,
    outcome: QueueOutcome,
    error: string | null,
    pause?: number,
  ): Promise<QueueOutcome> {
    const now = new Date();
    const retrying = outcome === 'retrying';
    const date = (value: Date | null) => (value ? this.database.sqlDate(value) : null);
    const next = retrying && pause ? new Date(now.getTime() + pause * 1000) : null;
    const changed = await this.database.transaction((manager) =>
      this.database.write(
        manager,
        'UPDATE mail_queue SET status = ?, attempts = ?, next_attempt_at = ?, claim = NULL,' +
          ` last_error = ?, finished_at = ?${retrying ? '' : ", payload = ''"}` +
          ' WHERE id = ? AND claim = ?',
        [
          retrying ? 'pending' : outcome,
          outcome === 'expired' ? row.attempts : row.attempts + 1,
          date(next),
          error?.slice(0, 500) ?? null,
          retrying ? null : date(now),
          row.id,
          row.claim,
        ],
      ),
    );
    if (changed === 0) return outcome;
    this.metrics.count(kind, outcome);
    if (outcome !== 'sent') {
      // The id and the SMTP reply: never the address or the link.
      this.logger.warn(`Queued ${kind} mail ${row.id}: ${outcome}${error ? ` (${error})` : ''}`);
    }
    return outcome;
  }
}
