import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { WebhookConfig } from '../config/config.sections';
import { Database } from '../database/database.service';
import { SecretBox } from '../common/crypto/secret-box';
import { leaseDue, marks, shuffled } from '../database/due-rows';
import { newId, rawDate } from './webhook-ids';
import { AttemptOutcome } from './webhook-metrics';

/** Due deliveries one claim looks at. */
const BATCH = 50;
/** A claim outlives the attempt's timeout by this much before another worker may take it. */
const LEASE_MARGIN_MS = 10_000;

/** A claimed delivery, with what sending it takes: its endpoint and the secrets that sign. */
export interface Claimed {
  id: string;
  webhookId: string;
  body: string;
  attempts: number;
  claim: string;
  url: string;
  secrets: string[];
}

/** What one attempt came to: the receiver's status, or why there was none (`error`). */
export interface AttemptResult {
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}

/**
 * Claims and outcomes, in the database so every instance shares them. A claim is a lease:
 * `next_attempt_at` moves to the end of it and `claim` names it, in one short transaction
 * (on MariaDB with `FOR UPDATE SKIP LOCKED`, so two instances never claim the same row, nor
 * wait for each other); a worker that dies before recording leaves the row due again when its
 * lease ends. An outcome is written only while the claim is still the worker's.
 */
@Injectable()
export class WebhookClaims {
  constructor(
    private readonly database: Database,
    private readonly box: SecretBox,
    private readonly config: WebhookConfig,
  ) {}

  /** Due deliveries of enabled endpoints, at most `perEndpoint` in flight per endpoint. */
  async claim(inFlight: ReadonlyMap<string, number>, perEndpoint: number): Promise<Claimed[]> {
    return this.database.transaction(async (manager) => {
      const enabled: Array<{ id: string }> = await manager.query(
        'SELECT id FROM webhooks WHERE enabled = 1',
      );
      const open = enabled
        .map((row) => row.id)
        .filter((id) => (inFlight.get(id) ?? 0) < perEndpoint);
      if (open.length === 0) return [];
      const now = new Date();
      // A plain read: locking the due index's range would also lock the gap the outbox inserts
      // into, and so hold up the changes of every request until the claim commits.
      const due: Array<{ id: string; webhook_id: string }> = await manager.query(
        'SELECT id, webhook_id FROM webhook_deliveries' +
          ` WHERE status = 'pending' AND next_attempt_at <= ? AND webhook_id IN (${marks(open)})` +
          ` ORDER BY next_attempt_at LIMIT ${BATCH}`,
        [this.database.sqlDate(now), ...open],
      );
      const taken = new Map<string, number>();
      // Picked at random among the oldest due: two instances reading the same rows then try
      // mostly different ones, rather than one of them finding all it picked locked.
      const picked = shuffled(due).filter((row) => {
        const count = (inFlight.get(row.webhook_id) ?? 0) + (taken.get(row.webhook_id) ?? 0);
        if (count >= perEndpoint) return false;
        taken.set(row.webhook_id, (taken.get(row.webhook_id) ?? 0) + 1);
        return true;
      });
      const { claim, ids } = await leaseDue(
        this.database,
        manager,
        'webhook_deliveries',
        picked.map((row) => row.id),
        now,
        this.config.timeoutMs + LEASE_MARGIN_MS,
      );
      if (ids.length === 0) return [];
      return this.load(manager, ids, claim, now);
    });
  }

  /**
   * Attempts and what follows each: `delivered`, the next try after the retry schedule's next
   * pause, or `failed` past its end; undefined for a claim no longer the worker's. Several in one
   * transaction: a commit (a sync on MariaDB) per batch, not per attempt.
   */
  async record(
    attempts: ReadonlyArray<{ delivery: Claimed; result: AttemptResult }>,
    schedule: readonly number[],
  ): Promise<Array<AttemptOutcome | undefined>> {
    return this.database.transaction(async (manager) => {
      const outcomes: Array<AttemptOutcome | undefined> = [];
      for (const { delivery, result } of attempts) {
        outcomes.push(await this.recordOne(manager, delivery, result, schedule));
      }
      return outcomes;
    });
  }

  private async recordOne(
    manager: EntityManager,
    delivery: Claimed,
    result: AttemptResult,
    schedule: readonly number[],
  ): Promise<AttemptOutcome | undefined> {
    const now = new Date();
    const attempts = delivery.attempts + 1;
    const pause = schedule[attempts - 1];
    const outcome: AttemptOutcome =
      result.error === null ? 'delivered' : pause === undefined ? 'failed' : 'retrying';
    const date = (value: Date | null) => (value ? this.database.sqlDate(value) : null);
    const next = outcome === 'retrying' ? new Date(now.getTime() + pause * 1000) : null;
    const error = result.error?.slice(0, 500) ?? null;
    const changed = await this.database.write(
      manager,
      'UPDATE webhook_deliveries SET status = ?, attempts = ?, next_attempt_at = ?,' +
        ' claim = NULL, last_status_code = ?, last_error = ?, finished_at = ?' +
        ' WHERE id = ? AND claim = ?',
      [
        outcome === 'retrying' ? 'pending' : outcome,
        attempts,
        date(next),
        result.statusCode,
        error,
        outcome === 'retrying' ? null : date(now),
        delivery.id,
        delivery.claim,
      ],
    );
    if (changed === 0) return undefined;
    await this.database.write(
      manager,
      'INSERT INTO webhook_attempts (id, delivery_id, attempted_at, status_code, error,' +
        ' duration_ms) VALUES (?, ?, ?, ?, ?, ?)',
      [
        newId('att'),
        delivery.id,
        date(now),
        result.statusCode,
        error,
        Math.round(result.durationMs),
      ],
    );
    return outcome;
  }

  private async load(
    manager: EntityManager,
    ids: string[],
    claim: string,
    now: Date,
  ): Promise<Claimed[]> {
    const rows: Array<{
      id: string;
      webhook_id: string;
      body: string;
      attempts: number;
      url: string;
      secret: string;
      previous_secret: string | null;
      previous_secret_until: Date | string | null;
    }> = await manager.query(
      'SELECT d.id, d.webhook_id, d.body, d.attempts, w.url, w.secret, w.previous_secret,' +
        ' w.previous_secret_until FROM webhook_deliveries d' +
        ` JOIN webhooks w ON w.id = d.webhook_id WHERE d.id IN (${marks(ids)})`,
      ids,
    );
    return rows.map((row) => {
      const until = rawDate(row.previous_secret_until);
      const previous = row.previous_secret && until && until > now ? [row.previous_secret] : [];
      return {
        id: row.id,
        webhookId: row.webhook_id,
        body: row.body,
        attempts: Number(row.attempts),
        claim,
        url: row.url,
        secrets: [row.secret, ...previous].map((sealed) => this.box.open(sealed)),
      };
    });
  }
}
