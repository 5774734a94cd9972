import { KeyObject } from 'node:crypto';
import { GetPublicKeyOrSecret, JwtHeader } from 'jsonwebtoken';
import { SecretOrKeyProvider } from 'passport-jwt';

/**
 * A passport-jwt `secretOrKeyProvider` that lets jsonwebtoken choose the key from the header it
 * has already decoded, so a token is decoded once per check. passport-jwt hands what `done` gets
 * to jsonwebtoken's `verify` as it is, and jsonwebtoken takes a `(header, callback)` key getter
 * (its documented asynchronous form; passport-jwt always verifies with a callback). `keyFor`
 * throws its refusal (unknown `kid`, `crit`, wrong `typ`); jsonwebtoken turns that into a
 * JsonWebTokenError, which passport reports as a failure, never a fault.
 */
export function keyFromHeader(
  keyFor: (header: JwtHeader | undefined) => KeyObject,
): SecretOrKeyProvider {
  const getKey: GetPublicKeyOrSecret = (header, callback) => {
    let key: KeyObject;
    try {
      key = keyFor(header);
    } catch (error) {
      return callback(error as Error);
    }
    callback(null, key);
  };
  // passport-jwt's types name only a string or Buffer; at runtime it passes the value through.
  const asSecret = getKey as unknown as string;
  return (_request, _rawToken, done) => done(null, asSecret);
}
