import { randomUUID } from 'node:crypto';
import { EntityManager } from 'typeorm';
import { Database } from './database.service';

/**
 * The lease machinery the durable outboxes share (webhook deliveries, queued mails): a table with
 * `status = 'pending'`, `next_attempt_at` and `claim`. Rows read as due are locked by primary key
 * (on MariaDB `FOR UPDATE SKIP LOCKED`, so rows another instance is claiming are passed over, not
 * waited for) and leased: `next_attempt_at` moves to the lease's end and `claim` names it. A
 * worker that dies leaves its rows due again once the lease ends. Call inside a transaction.
 */
export async function leaseDue(
  database: Database,
  manager: EntityManager,
  table: string,
  ids: readonly string[],
  now: Date,
  leaseMs: number,
): Promise<{ claim: string; ids: string[] }> {
  const locked = await lockDue(database, manager, table, ids, now);
  const claim = randomUUID();
  if (locked.length === 0) return { claim, ids: [] };
  const lease = new Date(now.getTime() + leaseMs);
  await database.write(
    manager,
    `UPDATE ${table} SET claim = ?, next_attempt_at = ? WHERE id IN (${marks(locked)})`,
    [claim, database.sqlDate(lease), ...locked],
  );
  return { claim, ids: locked };
}

/**
 * Of the rows read as due, those still due now. SQLite runs one unit of work at a time: what was
 * read is what is there.
 */
async function lockDue(
  database: Database,
  manager: EntityManager,
  table: string,
  ids: readonly string[],
  now: Date,
): Promise<string[]> {
  if (ids.length === 0 || database.holdsEventLoop) return [...ids];
  const rows: Array<{ id: string }> = await manager.query(
    `SELECT id FROM ${table} WHERE id IN (${marks(ids)})` +
      " AND status = 'pending' AND next_attempt_at <= ? FOR UPDATE SKIP LOCKED",
    [...ids, database.sqlDate(now)],
  );
  return rows.map((row) => row.id);
}

/** Picked at random among the oldest due: two instances then try mostly different rows. */
export function shuffled<T>(items: readonly T[]): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [copy[i], copy[j]] = [copy[j], copy[i]];
  }
  return copy;
}

/** `?, ?, ?`: one placeholder a value. */
export function marks(values: readonly unknown[]): string {
  return values.map(() => '?').join(', ');
}
