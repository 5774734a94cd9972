import { JwtModuleOptions, JwtSecretRequestType, JwtService } from '@nestjs/jwt';
import { KeyObject } from 'node:crypto';
import { Algorithm, JwtHeader, decode } from 'jsonwebtoken';
import { JwtConfig } from '../config/config.sections';
import { AccessTokenKeys } from './access-token-keys';
import { RefreshTokenKey } from './refresh-token-key';

/** The JwtService that signs and verifies refresh tokens; the module's own JwtService is access. */
export const REFRESH_JWT = Symbol('REFRESH_JWT');

export interface PinnedVerifyOptions {
  algorithms: Algorithm[];
  issuer?: string;
  audience?: string;
}

/** What every access-token check pins, in passport-jwt's strategy and JwtService.verify alike. */
export function accessVerifyOptions(jwt: JwtConfig, keys: AccessTokenKeys): PinnedVerifyOptions {
  return { algorithms: [keys.algorithm], issuer: jwt.issuer, audience: jwt.audience };
}

/** Refresh tokens: HS256 only, whatever the access tokens use. */
export const REFRESH_VERIFY_OPTIONS: PinnedVerifyOptions = Object.freeze({
  algorithms: ['HS256'],
}) as PinnedVerifyOptions;

/**
 * JwtModule's options for access tokens (RFC 9068): `typ: at+jwt` and the key's `kid` in the
 * header, `iss`, `aud` and `exp` from the configuration; the caller adds `sub` and `jti`.
 */
export function accessJwtOptions(jwt: JwtConfig, keys: AccessTokenKeys): JwtModuleOptions {
  return {
    secretOrKeyProvider: keyProvider(keys.signingKey, keys.keyFor),
    signOptions: {
      algorithm: keys.algorithm,
      header: { ...keys.header },
      expiresIn: jwt.accessTtl,
      issuer: jwt.issuer,
      audience: jwt.audience,
    },
    verifyOptions: accessVerifyOptions(jwt, keys),
  };
}

/** A JwtService of its own, so the refresh secret never signs or verifies an access token. */
export function refreshJwtService(key: RefreshTokenKey): JwtService {
  return new JwtService({
    secretOrKeyProvider: keyProvider(key.key, key.keyFor),
    signOptions: { algorithm: 'HS256' },
    verifyOptions: { ...REFRESH_VERIFY_OPTIONS },
  });
}

/**
 * Signing takes the configured key; verifying (JwtService.verify, off the request path: the
 * passport strategies verify there) takes the key the header may use, or throws its refusal.
 */
function keyProvider(signingKey: KeyObject, keyFor: (header: JwtHeader | undefined) => KeyObject) {
  return (type: JwtSecretRequestType, token: string | object | Buffer): KeyObject =>
    type === JwtSecretRequestType.SIGN
      ? signingKey
      : keyFor(typeof token === 'string' ? decode(token, { complete: true })?.header : undefined);
}
