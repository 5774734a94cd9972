import { JsonWebTokenError, NotBeforeError, TokenExpiredError } from 'jsonwebtoken';

/** A compact JWS taken apart; nothing in it is trusted until its signature has been checked. */
export interface CompactJws {
  header: Record<string, unknown>;
  /** `header.payload`: what the signature covers. */
  signingInput: string;
  payload: string;
  signature: Buffer;
}

/** The header a signer writes on every token, with its encoding, so a check need not decode it. */
export interface OwnHeader {
  encoded: string;
  fields: Readonly<Record<string, unknown>>;
}

export function ownHeader(fields: Record<string, unknown>): OwnHeader {
  return { encoded: encodeSegment(fields), fields: Object.freeze({ ...fields }) };
}

const SEGMENT = /^[A-Za-z0-9_-]+$/;

/**
 * Three base64url segments, a header naming exactly the algorithm of the signer's own header
 * (never `none`, never one the token picks) and no critical extension (we issue none, so none can be understood: RFC 7515 §4.1.11).
 * The signature must be in its one canonical base64url spelling: the spare bits of its last
 * character cannot give the same signature a second token string. Refusals throw jsonwebtoken's
 * errors, which the guards read.
 */
export function parseCompact(token: string, own: OwnHeader): CompactJws {
  const parts = token.split('.');
  if (parts.length !== 3 || !parts.every((part) => SEGMENT.test(part))) {
    throw new JsonWebTokenError('jwt malformed');
  }
  const [encodedHeader, payload, encodedSignature] = parts;
  // The header the service itself writes needs no decoding on every request.
  const header = encodedHeader === own.encoded ? own.fields : decodeSegment(encodedHeader);
  if (!header || header.alg !== own.fields.alg) throw new JsonWebTokenError('invalid algorithm');
  if (header.crit !== undefined) throw new JsonWebTokenError('unsupported crit header');
  const signature = Buffer.from(encodedSignature, 'base64url');
  if (signature.toString('base64url') !== encodedSignature) {
    throw new JsonWebTokenError('invalid signature');
  }
  return { header, signingInput: `${encodedHeader}.${payload}`, payload, signature };
}

/** The claims of a token whose signature has been checked: an object, with `exp` still ahead. */
export function verifiedClaims(jws: CompactJws, now: number): Record<string, unknown> {
  const claims = decodeSegment(jws.payload);
  if (!claims || typeof claims.exp !== 'number') throw new JsonWebTokenError('invalid payload');
  if (now >= claims.exp) throw new TokenExpiredError('jwt expired', new Date(claims.exp * 1000));
  if (claims.nbf !== undefined && typeof claims.nbf !== 'number') {
    throw new JsonWebTokenError('invalid nbf value');
  }
  if (typeof claims.nbf === 'number' && claims.nbf > now) {
    throw new NotBeforeError('jwt not active', new Date(claims.nbf * 1000));
  }
  return claims;
}

export function encodeSegment(value: object): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

/** A JSON object, or undefined for anything else (arrays, numbers, broken JSON). */
function decodeSegment(segment: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
