import { KeyObject, createSecretKey } from 'node:crypto';
import { JsonWebTokenError, JwtHeader } from 'jsonwebtoken';
import { JwtConfig } from '../config/config.sections';

/**
 * The refresh-token secret as a key object made once at boot (a string would be imported on
 * every call). Refresh tokens are always HS256 under their own secret: only this service reads
 * them, and a key of their own means no access token can ever pass as one.
 */
export class RefreshTokenKey {
  readonly key: KeyObject;

  constructor(jwt: JwtConfig) {
    this.key = createSecretKey(Buffer.from(jwt.refreshSecret, 'utf8'));
  }

  /** The secret, unless the header carries a critical extension, which jsonwebtoken ignores. */
  readonly keyFor = (header: JwtHeader | undefined): KeyObject => {
    if (!header) throw new JsonWebTokenError('jwt malformed');
    if (header.crit !== undefined) throw new JsonWebTokenError('unsupported crit header');
    return this.key;
  };
}
