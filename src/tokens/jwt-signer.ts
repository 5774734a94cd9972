import { KeyObject, createSecretKey } from 'node:crypto';
import * as jwt from 'jsonwebtoken';

/**
 * The only algorithm accepted for refresh tokens, and for access tokens unless JWT_ALGORITHM names
 * a key pair: never `none`, never one the token's own header asks for.
 */
export const JWT_ALGORITHMS: jwt.Algorithm[] = ['HS256'];

export type TokenKind = 'access' | 'refresh';

export interface BaseClaims {
  sub: string;
  typ: TokenKind;
  iat: number;
  exp: number;
}

/**
 * Signs and verifies one kind of token with its own secret. The key is imported once: a string
 * secret would be re-imported by jsonwebtoken on every call.
 */
export class JwtSigner {
  readonly key: KeyObject;

  constructor(
    secret: string,
    readonly kind: TokenKind,
  ) {
    this.key = createSecretKey(Buffer.from(secret, 'utf8'));
  }

  /** Claims are given whole (including `iat` and `exp`), so equal claims give an equal token. */
  sign(claims: BaseClaims & Record<string, unknown>): string {
    return jwt.sign(claims, this.key, { algorithm: JWT_ALGORITHMS[0] });
  }

  /** The verified claims; a refused token throws jsonwebtoken's error (expired, bad signature…). */
  verify(token: string): unknown {
    return jwt.verify(token, this.key, { algorithms: JWT_ALGORITHMS });
  }
}

export function epochSeconds(date: Date = new Date()): number {
  return Math.floor(date.getTime() / 1000);
}
