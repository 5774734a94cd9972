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
