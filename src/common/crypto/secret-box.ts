import { Injectable } from '@nestjs/common';
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { MfaConfig } from '../../config/config.sections';

const VERSION = 'v1';

/**
 * Seals secrets at rest (TOTP secrets, webhook endpoints' signing secrets) with AES-256-GCM under
 * MFA_ENCRYPTION_KEY: a copy of the database alone gives no one a user's codes or a signature. Each sealed value names the key that
 * sealed it (the first bytes of its SHA-256), so after a rotation the previous keys still open
 * what they sealed, and `sealedWithCurrent` tells which values to seal again.
 * Form: `v1.<key id>.<iv>.<ciphertext and tag>`, base64url parts.
 */
@Injectable()
export class SecretBox {
  private readonly current: { id: string; key: Buffer };
  private readonly keys: ReadonlyMap<string, Buffer>;

  constructor(config: MfaConfig) {
    this.current = { id: keyId(config.encryptionKey), key: config.encryptionKey };
    this.keys = new Map(
      [config.encryptionKey, ...config.previousEncryptionKeys].map((key) => [keyId(key), key]),
    );
  }

  seal(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.current.key, iv);
    const sealed = Buffer.concat([
      cipher.update(plain, 'utf8'),
      cipher.final(),
      cipher.getAuthTag(),
    ]);
    return [VERSION, this.current.id, iv.toString('base64url'), sealed.toString('base64url')].join(
      '.',
    );
  }

  /** Throws when the value was not sealed by a known key, or was altered. */
  open(value: string): string {
    const [version, id, iv, body] = value.split('.');
    const key = this.keys.get(id ?? '');
    if (version !== VERSION || !key || !iv || !body) {
      throw new Error('A secret was sealed with a key this service does not have');
    }
    const sealed = Buffer.from(body, 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(sealed.subarray(sealed.length - 16));
    return Buffer.concat([
      decipher.update(sealed.subarray(0, sealed.length - 16)),
      decipher.final(),
    ]).toString('utf8');
  }

  sealedWithCurrent(value: string): boolean {
    return value.split('.')[1] === this.current.id;
  }
}

function keyId(key: Buffer): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 8);
}
