import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { loadOrCreateDevKeys, rotateDevKeys } from './dev-signing-keys';
import { signingKeyFromPem, verificationKeysFromPem } from './signing-keys';

const TTL = 900;
const at = (iso: string) => new Date(iso);

describe('generated access-token keys (outside production)', () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'dev-keys-spec-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  const kidOf = (pem: string) => signingKeyFromPem(pem, 'ES256').kid;
  const publicKids = (pems: string[]) =>
    pems.flatMap((pem) => verificationKeysFromPem(pem, 'ES256')).map((key) => key.kid);

  it('generates a key once, readable by its owner only, and keeps it', () => {
    const first = loadOrCreateDevKeys(dataDir, 'ES256', TTL);
    const second = loadOrCreateDevKeys(dataDir, 'ES256', TTL);
    expect(second.privateKey).toBe(first.privateKey);
    expect(first.previousPublicKeys).toEqual([]);
    expect(first.file).toBe(join(dataDir, 'jwt-keys', 'ES256.json'));
    expect(statSync(first.file).mode & 0o777).toBe(0o600);
    expect(statSync(dirname(first.file)).mode & 0o777).toBe(0o700);
    expect(signingKeyFromPem(first.privateKey, 'ES256').jwk.crv).toBe('P-256');
  });

  it('rotates: a new key signs; the old one verifies for the TTL from the next start, then goes', () => {
    const old = loadOrCreateDevKeys(dataDir, 'ES256', TTL, at('2026-01-01T10:00:00Z'));
    const rotated = rotateDevKeys(dataDir, 'ES256');
    expect(kidOf(rotated.privateKey)).not.toBe(kidOf(old.privateKey));
    expect(publicKids([rotated.retiredPublicKey!])).toEqual([kidOf(old.privateKey)]);
    // The window has not started: a running service may still be signing with the old key.
    expect(JSON.parse(readFileSync(old.file, 'utf8')).previous).toEqual([
      { publicKey: rotated.retiredPublicKey, retiredAt: null },
    ]);

    const boot = loadOrCreateDevKeys(dataDir, 'ES256', TTL, at('2026-01-01T12:00:00Z'));
    expect(boot.privateKey).toBe(rotated.privateKey);
    expect(publicKids(boot.previousPublicKeys)).toEqual([kidOf(old.privateKey)]);
    expect(JSON.parse(readFileSync(old.file, 'utf8')).previous[0].retiredAt).toBe(
      '2026-01-01T12:00:00.000Z',
    );

    const stillLive = loadOrCreateDevKeys(dataDir, 'ES256', TTL, at('2026-01-01T12:14:59Z'));
    expect(stillLive.previousPublicKeys).toHaveLength(1);
    const expired = loadOrCreateDevKeys(dataDir, 'ES256', TTL, at('2026-01-01T12:15:00Z'));
    expect(expired.previousPublicKeys).toEqual([]);
    expect(JSON.parse(readFileSync(old.file, 'utf8')).previous).toEqual([]);
    expect(statSync(old.file).mode & 0o777).toBe(0o600);
  });

  it('rotating before any start just creates a key', () => {
    const rotated = rotateDevKeys(dataDir, 'ES256');
    expect(rotated.retiredPublicKey).toBeUndefined();
    expect(loadOrCreateDevKeys(dataDir, 'ES256', TTL).privateKey).toBe(rotated.privateKey);
  });

  it('refuses a damaged key file rather than replacing the key', () => {
    const { file } = loadOrCreateDevKeys(dataDir, 'ES256', TTL);
    writeFileSync(file, '{ not json');
    expect(() => loadOrCreateDevKeys(dataDir, 'ES256', TTL)).toThrow(
      'is not valid JSON: delete it to generate a new key',
    );
    writeFileSync(file, JSON.stringify({ algorithm: 'EdDSA', privateKey: 'x', previous: [] }));
    expect(() => loadOrCreateDevKeys(dataDir, 'ES256', TTL)).toThrow('is not a key file');
    expect(readFileSync(file, 'utf8')).toContain('EdDSA');
  });
});
