import { randomBytes } from 'node:crypto';

/** `wh_…` endpoints, `evt_…` events, `msg_…` deliveries (the `webhook-id` header), `att_…`. */
export function newId(prefix: 'wh' | 'evt' | 'msg' | 'att'): string {
  return `${prefix}_${randomBytes(15).toString('base64url')}`;
}

/** A datetime as a raw query returns it: a Date from mysql2, UTC text from SQLite. */
export function rawDate(value: Date | string | null): Date | null {
  if (value === null) return null;
  return value instanceof Date ? value : new Date(`${value.replace(' ', 'T')}Z`);
}
