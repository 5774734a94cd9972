import { randomUUID } from 'node:crypto';
import * as jwt from 'jsonwebtoken';
import { ACCESS_SECRET } from './test-app';

/** The test app's issuer and audience: PUBLIC_URL's default, as neither is configured. */
export const TEST_ISSUER = 'http://localhost:3000';

const now = () => Math.floor(Date.now() / 1000);

/**
 * The claims the service writes into an access token (RFC 9068), for a logged-in session (its
 * user and its live session, the `sid` of its access token: a token naming an ended or unknown
 * session is refused), or for a bare user id with a made-up session.
 */
export function accessClaims(
  who: string | { user: { id: string }; access: string },
  ttl = 600,
): Record<string, unknown> {
  const [userId, sid] =
    typeof who === 'string'
      ? [who, randomUUID()]
      : [who.user.id, (jwt.decode(who.access) as { sid: string }).sid];
  return {
    sub: userId,
    sid,
    ver: 0,
    role: 'user',
    jti: randomUUID(),
    iss: TEST_ISSUER,
    aud: TEST_ISSUER,
    iat: now(),
    exp: now() + ttl,
  };
}

/**
 * An HS256 access token as the service would sign it with the test secret, with any claim or
 * header changed: each refusal test changes one thing only.
 */
export function signAccess(
  claims: Record<string, unknown>,
  options: { secret?: string; header?: Record<string, unknown> } = {},
): string {
  const header = { alg: 'HS256', typ: 'at+jwt', ...options.header } as jwt.JwtHeader;
  return jwt.sign(claims, options.secret ?? ACCESS_SECRET, { algorithm: 'HS256', header });
}
