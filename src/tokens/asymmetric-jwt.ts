import { KeyObject, sign, verify } from 'node:crypto';
import { JsonWebTokenError } from 'jsonwebtoken';
import { AsymmetricAlgorithm, SigningKey, VerificationKey } from '../config/signing-keys';
import { OwnHeader, encodeSegment, ownHeader, parseCompact, verifiedClaims } from './compact-jws';
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

/**
 * Signs access tokens with the current key (`kid` in the header) and verifies them against the
 * current and previous public keys. jsonwebtoken 9 knows no EdDSA, so this is node:crypto on key
 * objects imported once at boot: one synchronous signature check per token, no per-request import.
 * Refusals throw jsonwebtoken's own errors, so the guards treat both paths alike.
 */
export class AsymmetricJwt {
  private readonly scheme: (typeof SCHEMES)[AsymmetricAlgorithm];
  private readonly header: OwnHeader;
  private readonly keys: ReadonlyMap<string, KeyObject>;
  readonly jwks: { keys: PublishedJwk[] };

  constructor(
    readonly algorithm: AsymmetricAlgorithm,
    private readonly current: SigningKey,
    previous: readonly VerificationKey[],
  ) {
    this.scheme = SCHEMES[algorithm];
    this.header = ownHeader({ alg: algorithm, typ: 'JWT', kid: current.kid });
    const all = [current, ...previous];
    this.keys = new Map(all.map((key) => [key.kid, key.publicKey]));
    this.jwks = {
      keys: all.map((key) => ({ ...key.jwk, kid: key.kid, alg: algorithm, use: 'sig' })),
    };
  }

  sign(claims: object): string {
    const input = `${this.header.encoded}.${encodeSegment(claims)}`;
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
    const jws = parseCompact(token, this.header);
    const kid = jws.header.kid;
    const key = typeof kid === 'string' ? this.keys.get(kid) : undefined;
    if (!key) throw new JsonWebTokenError('unknown kid');
    if (
      jws.signature.length !== SIGNATURE_BYTES ||
      !verify(
        this.scheme.digest,
        Buffer.from(jws.signingInput),
        { key, dsaEncoding: this.scheme.dsaEncoding },
        jws.signature,
      )
    ) {
      throw new JsonWebTokenError('invalid signature');
    }
    return verifiedClaims(jws, now);
  }
}
