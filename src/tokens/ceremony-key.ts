import { hkdfSync } from 'node:crypto';

/**
 * A 256-bit key of its own for what a ceremony hands the browser instead of storing it (a passkey
 * challenge's MAC, an identity provider's sealed `state`), derived from JWT_REFRESH_SECRET: every
 * instance has that secret, so a ceremony begun on one finishes on another, and a key per
 * `purpose` (HKDF) means none of them can stand for a refresh token's signature or each other.
 * Rotating the secret ends the ceremonies in progress, minutes long, with the sessions.
 */
export function ceremonyKey(refreshSecret: string, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', refreshSecret, 'auth-service', `ceremony:${purpose}`, 32));
}
