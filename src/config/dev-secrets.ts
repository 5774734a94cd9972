import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

interface StoredSecrets {
  accessSecret: string;
  refreshSecret: string;
}

/**
 * Outside production the JWT secrets may be left unset: they are generated once and kept in the
 * data folder, so tokens survive a restart and a newcomer configures nothing.
 */
export function loadOrCreateDevSecrets(dataDir: string): StoredSecrets {
  const file = join(dataDir, 'jwt-secrets.json');
  try {
    const stored = JSON.parse(readFileSync(file, 'utf8')) as Partial<StoredSecrets>;
    if (typeof stored.accessSecret === 'string' && typeof stored.refreshSecret === 'string') {
      return { accessSecret: stored.accessSecret, refreshSecret: stored.refreshSecret };
    }
  } catch {
    // Missing or unreadable: generate below.
  }
  const secrets: StoredSecrets = {
    accessSecret: randomBytes(48).toString('base64url'),
    refreshSecret: randomBytes(48).toString('base64url'),
  };
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(file, JSON.stringify(secrets, null, 2), { mode: 0o600 });
  return secrets;
}

/**
 * Outside production MFA_ENCRYPTION_KEY may be left unset too: a key is generated once into the
 * data folder, so the second factors sealed with it still open after a restart.
 */
export function loadOrCreateDevMfaKey(dataDir: string): Buffer {
  const file = join(dataDir, 'mfa-key');
  try {
    const stored = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
    if (stored.length === 32) return stored;
  } catch {
    // Missing or unreadable: generate below.
  }
  const key = randomBytes(32);
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(file, `${key.toString('base64')}\n`, { mode: 0o600 });
  return key;
}
