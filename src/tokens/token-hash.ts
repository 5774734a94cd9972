import { createHash, createHmac, randomBytes } from 'node:crypto';

/** What the database stores in place of a token: its SHA-256, hex. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** 256 random bits, URL-safe. */
export function randomToken(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * The id of the token that replaces `jti` on rotation. Derived (HMAC with the refresh secret)
 * rather than stored, so a retired token presented again inside the grace window can be answered
 * with the very same successor without the successor ever being kept in plain form.
 */
export function successorJti(secret: string, jti: string): string {
  return createHmac('sha256', secret).update(`successor:${jti}`).digest('base64url');
}
