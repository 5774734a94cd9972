import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { calculateJwkThumbprint } from 'jose';
import {
  KeyProblem,
  jwkThumbprint,
  signingKeyFromPem,
  verificationKey,
  verificationKeysFromPem,
} from './signing-keys';

const pkcs8 = (key: { export(options: object): string | Buffer }) =>
  key.export({ format: 'pem', type: 'pkcs8' }).toString();
const spki = (key: { export(options: object): string | Buffer }) =>
  key.export({ format: 'pem', type: 'spki' }).toString();

describe('signing keys', () => {
  it('names a key by its RFC 7638 thumbprint (RFC 8037 A.3 test vector)', () => {
    const jwk = { kty: 'OKP', crv: 'Ed25519', x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo' };
    const key = verificationKey(createPublicKey({ key: jwk, format: 'jwk' }));
    expect(key.kid).toBe('kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k');
    expect(key.jwk).toEqual(jwk);
  });

  it('computes the same thumbprint as jose for a P-256 key', async () => {
    const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const key = verificationKey(publicKey);
    expect(Object.keys(key.jwk).sort()).toEqual(['crv', 'kty', 'x', 'y']);
    expect(jwkThumbprint(key.jwk)).toBe(await calculateJwkThumbprint(key.jwk, 'sha256'));
  });

  it('reads a PKCS#8 private key, also with its line breaks written as \\n', () => {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const key = signingKeyFromPem(pkcs8(privateKey), 'ES256');
    expect(key.kid).toBe(verificationKey(publicKey).kid);
    const oneLine = pkcs8(privateKey).replace(/\n/g, '\\n');
    expect(signingKeyFromPem(oneLine, 'ES256').kid).toBe(key.kid);
  });

  it.each([
    [
      'ES256',
      'Ed25519',
      () => generateKeyPairSync('ed25519'),
      /P-256 \(prime256v1\) key .* \(got ed25519\)/,
    ],
    [
      'ES256',
      'P-384',
      () => generateKeyPairSync('ec', { namedCurve: 'P-384' }),
      /\(got ec secp384r1\)/,
    ],
    ['ES256', 'RSA', () => generateKeyPairSync('rsa', { modulusLength: 1024 }), /\(got rsa\)/],
  ] as const)(
    'refuses for %s a key of another type (%s)',
    (algorithm, _type, generate, message) => {
      const { privateKey, publicKey } = generate();
      expect(() => signingKeyFromPem(pkcs8(privateKey), algorithm)).toThrow(message);
      expect(() => verificationKeysFromPem(spki(publicKey), algorithm)).toThrow(message);
    },
  );

  it('refuses an unreadable key without repeating it', () => {
    const attempt = () => signingKeyFromPem('-----BEGIN PRIVATE KEY-----\nc2VjcmV0\n', 'ES256');
    expect(attempt).toThrow(KeyProblem);
    expect(attempt).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining('c2VjcmV0') }),
    );
    expect(() => verificationKeysFromPem('nothing here', 'ES256')).toThrow(
      'must hold PEM public keys (-----BEGIN PUBLIC KEY-----)',
    );
  });

  it('reads every public key of a file, notes between them ignored', () => {
    const first = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey;
    const second = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey;
    const text = `# retired 2026-05-01\n${spki(first)}\n# retired 2026-06-01\n${spki(second)}`;
    expect(verificationKeysFromPem(text, 'ES256').map((key) => key.kid)).toEqual([
      verificationKey(first).kid,
      verificationKey(second).kid,
    ]);
  });
});
