import { DomainEvent } from '../events/domain-event.catalogue';
import { User } from '../users/user.entity';
import { verifiedUser } from '../users/user.view';

/**
 * The body receivers get (Standard Webhooks): `{ type, timestamp, data }`, with `data` in the API's
 * spelling (snake_case). A user appears as `GET /users/me` shows one's own account (never a hash,
 * a token version or a secret); a session as `{ id, amr }`.
 */
export function webhookBody(event: DomainEvent, at: Date): string {
  return JSON.stringify({ type: event.type, timestamp: at.toISOString(), data: shown(event.data) });
}

function shown(value: unknown): unknown {
  if (value instanceof User) return verifiedUser(value);
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map(shown);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>)
      .filter(([, item]) => item !== undefined)
      .map(([name, item]) => [snakeCase(name), shown(item)]),
  );
}

function snakeCase(name: string): string {
  return name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}
