import { SecretBox } from './secret-box';

const key = (fill: number) => Buffer.alloc(32, fill);
const box = (current: Buffer, previous: Buffer[] = []) =>
  new SecretBox({
    encryptionKey: current,
    previousEncryptionKeys: previous,
    stepUpMaxAge: 600,
    requiredRoles: [],
  });

describe('SecretBox', () => {
  it('seals so that only the key opens it, never the same way twice', () => {
    const sealed = box(key(1)).seal('JBSWY3DPEHPK3PXP');
    expect(sealed).toMatch(/^v1\.[0-9a-f]{8}\.[\w-]+\.[\w-]+$/);
    expect(sealed).not.toContain('JBSWY3DPEHPK3PXP');
    expect(box(key(1)).seal('JBSWY3DPEHPK3PXP')).not.toBe(sealed);
    expect(box(key(1)).open(sealed)).toBe('JBSWY3DPEHPK3PXP');
    expect(() => box(key(2)).open(sealed)).toThrow(/key this service does not have/);
  });

  it('refuses a sealed value that was altered', () => {
    const sealed = box(key(1)).seal('JBSWY3DPEHPK3PXP');
    const parts = sealed.split('.');
    const body = Buffer.from(parts[3], 'base64url');
    body[0] ^= 1;
    parts[3] = body.toString('base64url');
    expect(() => box(key(1)).open(parts.join('.'))).toThrow();
  });

  it('opens what a previous key sealed after a rotation, and tells it apart', () => {
    const old = box(key(1)).seal('JBSWY3DPEHPK3PXP');
    const rotated = box(key(2), [key(1)]);
    expect(rotated.open(old)).toBe('JBSWY3DPEHPK3PXP');
    expect(rotated.sealedWithCurrent(old)).toBe(false);
    expect(rotated.sealedWithCurrent(rotated.seal('x'))).toBe(true);
  });
});
