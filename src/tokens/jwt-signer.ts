import { KeyObject, createHmac, createSecretKey, timingSafeEqual } from 'node:crypto';
import { JsonWebTokenError } from 'jsonwebtoken';
import { encodeSegment, ownHeader, parseCompact, verifiedClaims } from './compact-jws';

/**
 * The only algorithm accepted for refresh tokens, and for access tokens unless JWT_ALGORITHM names
 * a key pair: never `none`, never one the token's own header asks for.
 */
const HMAC_ALGORITHM = 'HS256';

export type TokenKind = 'access' | 'refresh';

export interface BaseClaims {
  sub: string;
  typ: TokenKind;
  iat: number;
  exp: number;
}

const HEADER = ownHeader({ alg: HMAC_ALGORITHM, typ: 'JWT' });

/**
 * Signs and verifies one kind of token with its own secret, with node:crypto on a key imported
 * once. The tokens are the ones jsonwebtoken would make, byte for byte (a test holds it to that);
 * jsonwebtoken's own path decoded every token twice and cost a seventh of a token check's CPU
 * (docs/performance.md).
 */
export class JwtSigner {
  private readonly key: KeyObject;

  constructor(
    secret: string,
    readonly kind: TokenKind,
  ) {
    this.key = createSecretKey(Buffer.from(secret, 'utf8'));
  }

  /** Claims are given whole (including `iat` and `exp`), so equal claims give an equal token. */
  sign(claims: BaseClaims & Record<string, unknown>): string {
    const input = `${HEADER.encoded}.${encodeSegment(claims)}`;
    return `${input}.${this.mac(input).toString('base64url')}`;
  }

  /** The verified claims; a refused token throws jsonwebtoken's error (expired, bad signature…). */
  verify(token: string, now: number = epochSeconds()): Record<string, unknown> {
    const jws = parseCompact(token, HEADER);
    const expected = this.mac(jws.signingInput);
    if (jws.signature.length !== expected.length || !timingSafeEqual(jws.signature, expected)) {
      throw new JsonWebTokenError('invalid signature');
    }
    return verifiedClaims(jws, now);
  }

  private mac(input: string): Buffer {
    return createHmac('sha256', this.key).update(input).digest();
  }
}

export function epochSeconds(date: Date = new Date()): number {
  return Math.floor(date.getTime() / 1000);
}
