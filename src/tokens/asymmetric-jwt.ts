import { KeyObject, sign, verify } from 'node:crypto';
import { JsonWebTokenError, NotBeforeError, TokenExpiredError } from 'jsonwebtoken';
import { AsymmetricAlgorithm, SigningKey, VerificationKey } from '../config/signing-keys';
import { epochSeconds } from './jwt-signer';

/** RFC 7517 public key as published: the key's own members plus its name and purpose. */
export interface PublishedJwk {
  kty: string;
  crv: string;
  x: string;
  y?: string;
  kid: string;
  alg: AsymmetricAlgorithm;
  use: 'sig';
}

/**
 * node:crypto's terms for each algorithm. JWS carries ECDSA signatures as raw r‖s (IEEE P1363),
 * not DER; Ed25519 hashes internally. Both signatures are 64 bytes.
 */
const SCHEMES: Record<AsymmetricAlgorithm, { digest: string | null; dsaEncoding?: 'ieee-p1363' }> =
  {
    EdDSA: { digest: null },
    ES256: { digest: 'sha256', dsaEncoding: 'ieee-p1363' },
  };
const SIGNATURE_BYTES = 64;
const SEGMENT = /^[A-Za-z0-9_-]+$/;

/**
 * Signs access tokens with the current key (`kid` in the header) and verifies them against the
 * current and previous public keys. jsonwebtoken 9 knows no EdDSA, so this is node:crypto on key
 * objects imported once at boot: one synchronous signature check per token, no per-request import.
 * Refusals throw jsonwebtoken's own errors, so the guards treat both paths alike.
 */
export class AsymmetricJwt {
  private readonly scheme: (typeof SCHEMES)[AsymmetricAlgorithm];
  private readonly encodedHeader: string;
  private readonly keys: ReadonlyMap<string, KeyObject>;
  readonly jwks: { keys: PublishedJwk[] };

  constructor(
    readonly algorithm: AsymmetricAlgorithm,
    private readonly current: SigningKey,
    previous: readonly VerificationKey[],
  ) {
    this.scheme = SCHEMES[algorithm];
    this.encodedHeader = encode({ alg: algorithm, typ: 'JWT', kid: current.kid });
    const all = [current, ...previous];
    this.keys = new Map(all.map((key) => [key.kid, key.publicKey]));
    this.jwks = {
      keys: all.map((key) => ({ ...key.jwk, kid: key.kid, alg: algorithm, use: 'sig' })),
    };
  }

  sign(claims: object): string {
    const input = `${this.encodedHeader}.${encode(claims)}`;
    const signature = sign(this.scheme.digest, Buffer.from(input), {
      key: this.current.privateKey,
      dsaEncoding: this.scheme.dsaEncoding,
    });
    return `${input}.${signature.toString('base64url')}`;
  }

  /**
   * The claims of a token whose header names exactly the configured algorithm and a known `kid`,
   * whose signature verifies with that key, and which has not expired. Nothing in the header can
   * choose the key or the algorithm: `jwk`, `jku` and the like are never read.
   */
  verify(token: string, now: number = epochSeconds()): Record<string, unknown> {
    const parts = token.split('.');
    if (parts.length !== 3 || !parts.every((part) => SEGMENT.test(part))) {
      throw new JsonWebTokenError('jwt malformed');
    }
    const [header, payload, signature] = parts;
    const fields = decode(header);
    if (fields?.alg !== this.algorithm) throw new JsonWebTokenError('invalid algorithm');
    // We never issue critical extensions, so none can be understood (RFC 7515 §4.1.11).
    if (fields.crit !== undefined) throw new JsonWebTokenError('unsupported crit header');
    const key = typeof fields.kid === 'string' ? this.keys.get(fields.kid) : undefined;
    if (!key) throw new JsonWebTokenError('unknown kid');
    const bytes = Buffer.from(signature, 'base64url');
    if (
      bytes.length !== SIGNATURE_BYTES ||
      !verify(
        this.scheme.digest,
        Buffer.from(`${header}.${payload}`),
        { key, dsaEncoding: this.scheme.dsaEncoding },
        bytes,
      )
    ) {
      throw new JsonWebTokenError('invalid signature');
    }
    const claims = decode(payload);
    if (!claims || typeof claims.exp !== 'number') throw new JsonWebTokenError('invalid payload');
    if (now >= claims.exp) throw new TokenExpiredError('jwt expired', new Date(claims.exp * 1000));
    if (claims.nbf !== undefined && (typeof claims.nbf !== 'number' || claims.nbf > now)) {
      throw new NotBeforeError('jwt not active', new Date(Number(claims.nbf) * 1000));
    }
    return claims;
  }
}

function encode(value: object): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

/** A JSON object, or undefined for anything else (arrays, numbers, broken JSON). */
function decode(segment: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
