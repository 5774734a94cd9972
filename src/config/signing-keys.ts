import { KeyObject, createHash, createPrivateKey, createPublicKey } from 'node:crypto';

/**
 * What jsonwebtoken signs and verifies. EdDSA is not among them: jsonwebtoken has no EdDSA, and
 * the tokens go through @nestjs/jwt and passport-jwt, which are built on it.
 */
export type AccessAlgorithm = 'HS256' | 'ES256';
export type AsymmetricAlgorithm = Exclude<AccessAlgorithm, 'HS256'>;

export const ACCESS_ALGORITHMS: readonly AccessAlgorithm[] = ['HS256', 'ES256'];

/** The public members of a key as JWK: `kty`, `crv`, `x` and, for EC, `y`. */
export type PublicJwk = Readonly<Record<'kty' | 'crv' | 'x', string> & { y?: string }>;

/** A public key that verifies access tokens, named by the `kid` derived from it. */
export interface VerificationKey {
  readonly kid: string;
  readonly publicKey: KeyObject;
  readonly jwk: PublicJwk;
}

export interface SigningKey extends VerificationKey {
  readonly privateKey: KeyObject;
}

/** One curve per algorithm: a verifier that knows the algorithm knows the key type. */
const CURVES: Record<AsymmetricAlgorithm, { keyType: string; curve?: string; name: string }> = {
  ES256: { keyType: 'ec', curve: 'prime256v1', name: 'a P-256 (prime256v1)' },
};

/** Raised for a key that cannot be used; the caller names the variable or file it came from. */
export class KeyProblem extends Error {}

/** Environment values often carry a PEM on one line with `\n` written out. */
function unescapeNewlines(pem: string): string {
  return pem.includes('\n') ? pem : pem.replace(/\\n/g, '\n');
}

export function signingKeyFromPem(pem: string, algorithm: AsymmetricAlgorithm): SigningKey {
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey({ key: unescapeNewlines(pem), format: 'pem' });
  } catch {
    // Node's message can quote the input: never repeat it.
    throw new KeyProblem(
      'must be an unencrypted PEM private key (PKCS#8, -----BEGIN PRIVATE KEY-----)',
    );
  }
  checkKeyType(privateKey, algorithm);
  return { ...verificationKey(createPublicKey(privateKey)), privateKey };
}

/** Every `-----BEGIN PUBLIC KEY-----` block in the text; anything between blocks is ignored. */
export function verificationKeysFromPem(
  text: string,
  algorithm: AsymmetricAlgorithm,
): VerificationKey[] {
  const blocks = unescapeNewlines(text).match(
    /-----BEGIN PUBLIC KEY-----[\s\S]*?-----END PUBLIC KEY-----/g,
  );
  if (!blocks) throw new KeyProblem('must hold PEM public keys (-----BEGIN PUBLIC KEY-----)');
  return blocks.map((block, index) => {
    let publicKey: KeyObject;
    try {
      publicKey = createPublicKey({ key: block, format: 'pem' });
    } catch {
      throw new KeyProblem(`holds an unreadable public key (number ${index + 1})`);
    }
    checkKeyType(publicKey, algorithm, ` (number ${index + 1})`);
    return verificationKey(publicKey);
  });
}

function checkKeyType(key: KeyObject, algorithm: AsymmetricAlgorithm, which = ''): void {
  const expected = CURVES[algorithm];
  const curve = key.asymmetricKeyDetails?.namedCurve;
  if (key.asymmetricKeyType !== expected.keyType || (expected.curve && curve !== expected.curve)) {
    const got = [key.asymmetricKeyType, curve].filter(Boolean).join(' ');
    throw new KeyProblem(
      `must be ${expected.name} key for JWT_ALGORITHM=${algorithm}${which} (got ${got})`,
    );
  }
}

/**
 * The `kid` is the key's RFC 7638 thumbprint: derived from the key itself, so it is the same on
 * every instance and across restarts, and nothing has to be configured or stored to name a key.
 */
export function verificationKey(publicKey: KeyObject): VerificationKey {
  const exported = publicKey.export({ format: 'jwk' });
  const jwk: PublicJwk =
    exported.kty === 'EC'
      ? { kty: 'EC', crv: exported.crv!, x: exported.x!, y: exported.y! }
      : { kty: exported.kty!, crv: exported.crv!, x: exported.x! };
  return { kid: jwkThumbprint(jwk), publicKey, jwk };
}

/** RFC 7638: SHA-256 of the required members, in lexicographic order, without white space. */
export function jwkThumbprint(jwk: PublicJwk): string {
  const members =
    jwk.kty === 'EC'
      ? { crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y }
      : { crv: jwk.crv, kty: jwk.kty, x: jwk.x };
  return createHash('sha256').update(JSON.stringify(members)).digest('base64url');
}
