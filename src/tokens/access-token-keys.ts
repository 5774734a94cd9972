import { KeyObject, createSecretKey } from 'node:crypto';
import { JsonWebTokenError, JwtHeader } from 'jsonwebtoken';
import { AccessSigning } from '../config/config.sections';
import { AccessAlgorithm, AsymmetricAlgorithm } from '../config/signing-keys';

/** RFC 9068: the header type that tells an access token from any other JWT. */
export const ACCESS_TOKEN_TYPE = 'at+jwt';

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

export interface JwkSet {
  keys: PublishedJwk[];
}

/**
 * The access-token keys as node:crypto key objects, made once at boot: jsonwebtoken imports a
 * string secret or a PEM as a key on every sign and verify, and that import is most of the cost
 * of a token check. Only configuration chooses a key: a token's header may name one of these by
 * `kid`, never bring its own (`jwk`, `jku`, `x5u` are not read).
 */
export class AccessTokenKeys {
  readonly algorithm: AccessAlgorithm;
  /** The HS256 secret, or the current private key. */
  readonly signingKey: KeyObject;
  /** Written on every access token; `kid` only for a key pair. */
  readonly header: Readonly<JwtHeader>;
  /** The public keys other services verify with; none for HS256, whose secret is never shared. */
  readonly jwks: Readonly<JwkSet>;
  /** The HS256 secret, or the current and previous public keys by `kid`. */
  private readonly verifying: KeyObject | ReadonlyMap<string, KeyObject>;

  constructor(access: AccessSigning) {
    this.algorithm = access.algorithm;
    if (access.algorithm === 'HS256') {
      this.signingKey = createSecretKey(Buffer.from(access.secret, 'utf8'));
      this.verifying = this.signingKey;
      this.header = Object.freeze({ alg: access.algorithm, typ: ACCESS_TOKEN_TYPE });
      this.jwks = Object.freeze({ keys: [] });
      return;
    }
    const all = [access.current, ...access.previous];
    this.signingKey = access.current.privateKey;
    this.verifying = new Map(all.map((key) => [key.kid, key.publicKey]));
    this.header = Object.freeze({
      alg: access.algorithm,
      typ: ACCESS_TOKEN_TYPE,
      kid: access.current.kid,
    });
    this.jwks = Object.freeze({
      keys: all.map((key) => ({
        ...key.jwk,
        kid: key.kid,
        alg: access.algorithm,
        use: 'sig' as const,
      })),
    });
  }

  /**
   * The key that may verify a token with this (not yet trusted) header, or a refusal: another
   * type than `at+jwt` (a refresh token, an ID token), a critical extension (the service issues
   * none, so none can be understood, RFC 7515 §4.1.11; jsonwebtoken ignores `crit`), or for a key
   * pair a `kid` that is not a configured key. The algorithm is pinned by the verify options.
   */
  readonly keyFor = (header: JwtHeader | undefined): KeyObject => {
    if (!header || !isAccessType(header.typ)) throw new JsonWebTokenError('invalid token type');
    if (header.crit !== undefined) throw new JsonWebTokenError('unsupported crit header');
    if (this.verifying instanceof KeyObject) return this.verifying;
    const key = typeof header.kid === 'string' ? this.verifying.get(header.kid) : undefined;
    if (!key) throw new JsonWebTokenError('unknown kid');
    return key;
  };
}

/** RFC 9068 §4: `at+jwt`, or its full media type; media types ignore case. */
function isAccessType(typ: unknown): boolean {
  if (typ === ACCESS_TOKEN_TYPE) return true;
  if (typeof typ !== 'string') return false;
  const lower = typ.toLowerCase();
  return lower === ACCESS_TOKEN_TYPE || lower === `application/${ACCESS_TOKEN_TYPE}`;
}
