import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AsymmetricAlgorithm } from './signing-keys';

/** A key that signed once and still verifies for a while. */
interface RetiredKey {
  publicKey: string;
  /**
   * When this process (or the last one to boot) stopped signing with it. `null` right after
   * `npm run keys:rotate`: a service running during the rotation went on signing with the old key
   * until it stopped, so its verification window starts at the next boot.
   */
  retiredAt: string | null;
}

interface StoredKeys {
  algorithm: AsymmetricAlgorithm;
  privateKey: string;
  previous: RetiredKey[];
}

export interface DevKeys {
  file: string;
  privateKey: string;
  previousPublicKeys: string[];
}

/** One file per algorithm, so switching JWT_ALGORITHM back and forth keeps each one's keys. */
export function devKeysFile(dataDir: string, algorithm: AsymmetricAlgorithm): string {
  return join(dataDir, 'jwt-keys', `${algorithm}.json`);
}

/**
 * Outside production the access-token key pair may be left unconfigured: it is generated once
 * into the data folder (readable by its owner only) and kept, so tokens survive a restart. Keys
 * retired by `npm run keys:rotate` verify until ACCESS_TOKEN_TTL has passed since they stopped
 * signing, and are then dropped from the file.
 */
export function loadOrCreateDevKeys(
  dataDir: string,
  algorithm: AsymmetricAlgorithm,
  accessTtl: number,
  now: Date = new Date(),
): DevKeys {
  const file = devKeysFile(dataDir, algorithm);
  const stored = readStored(file, algorithm) ?? { algorithm, privateKey: '', previous: [] };
  let changed = stored.privateKey === '';
  if (changed) stored.privateKey = generatePrivateKey(algorithm);
  const kept: RetiredKey[] = [];
  for (const key of stored.previous) {
    if (key.retiredAt === null) {
      key.retiredAt = now.toISOString();
      changed = true;
    }
    // Every token it signed had expired by retiredAt + ACCESS_TOKEN_TTL.
    if (Date.parse(key.retiredAt) + accessTtl * 1000 > now.getTime()) kept.push(key);
    else changed = true;
  }
  stored.previous = kept;
  if (changed) writeStored(file, stored);
  return {
    file,
    privateKey: stored.privateKey,
    previousPublicKeys: kept.map((key) => key.publicKey),
  };
}

/**
 * A new signing key; the current one moves to the retired keys, its window not yet started.
 * A running service keeps its keys until it restarts. Returns the new and the retired PEMs.
 */
export function rotateDevKeys(
  dataDir: string,
  algorithm: AsymmetricAlgorithm,
): { file: string; privateKey: string; retiredPublicKey: string | undefined } {
  const file = devKeysFile(dataDir, algorithm);
  const stored = readStored(file, algorithm);
  const previous = stored?.previous ?? [];
  const retiredPublicKey = stored ? publicPem(stored.privateKey) : undefined;
  if (retiredPublicKey) previous.unshift({ publicKey: retiredPublicKey, retiredAt: null });
  const privateKey = generatePrivateKey(algorithm);
  writeStored(file, { algorithm, privateKey, previous });
  return { file, privateKey, retiredPublicKey };
}

/** Missing is undefined (generate); present but unreadable is an error, never overwritten. */
function readStored(file: string, algorithm: AsymmetricAlgorithm): StoredKeys | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new Error(`cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  let stored: Partial<StoredKeys>;
  try {
    stored = JSON.parse(text) as Partial<StoredKeys>;
  } catch {
    throw new Error('is not valid JSON: delete it to generate a new key');
  }
  if (
    stored.algorithm !== algorithm ||
    typeof stored.privateKey !== 'string' ||
    !Array.isArray(stored.previous) ||
    !stored.previous.every(
      (key) =>
        typeof key?.publicKey === 'string' &&
        (key.retiredAt === null ||
          (typeof key.retiredAt === 'string' && !Number.isNaN(Date.parse(key.retiredAt)))),
    )
  ) {
    throw new Error('is not a key file of this service: delete it to generate a new key');
  }
  return stored as StoredKeys;
}

/** Written whole and renamed into place, so a crash never leaves half a key file. */
function writeStored(file: string, stored: StoredKeys): void {
  mkdirSync(join(file, '..'), { recursive: true, mode: 0o700 });
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(stored, null, 2)}\n`, { mode: 0o600 });
  renameSync(temporary, file);
}

function generatePrivateKey(algorithm: AsymmetricAlgorithm): string {
  const curves: Record<AsymmetricAlgorithm, string> = { ES256: 'P-256' };
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: curves[algorithm] });
  return privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
}

function publicPem(privatePem: string): string {
  return createPublicKey(privatePem).export({ format: 'pem', type: 'spki' }).toString();
}
