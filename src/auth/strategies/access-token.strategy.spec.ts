import { JwtService } from '@nestjs/jwt';
import { createSecretKey, generateKeyPairSync } from 'node:crypto';
import { SignJWT, createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import * as jwt from 'jsonwebtoken';
import { JwtConfig } from '../../config/config.sections';
import { SigningKey, verificationKey } from '../../config/signing-keys';
import { AccessTokenKeys } from '../../tokens/access-token-keys';
import { AccessTokensService } from '../../tokens/access-tokens.service';
import { epochSeconds } from '../../tokens/epoch-seconds';
import { accessJwtOptions } from '../../tokens/jwt-options';
import { User } from '../../users/user.entity';
import { SessionsService } from '../../sessions/sessions.service';
import { UsersService } from '../../users/users.service';
import { SessionClaims } from '../../tokens/session-claims';
import { AccessTokenStrategy } from './access-token.strategy';
import { runStrategy } from '../../../test/support/run-strategy';

const SECRET = 'a-secret-of-thirty-two-characters-or-more';
const ISSUER = 'https://auth.example.com';
const AUDIENCE = 'https://api.example.com';

function p256(): SigningKey {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return { ...verificationKey(publicKey), privateKey };
}

function authenticate(strategy: AccessTokenStrategy, token: string) {
  return runStrategy(strategy, { headers: { authorization: `Bearer ${token}` } });
}

const current = p256();
const retired = p256();

/** A password login's, a minute ago. */
const AUTH = { methods: ['pwd'], authTime: new Date(Date.now() - 60_000) };

describe.each([
  ['HS256', { algorithm: 'HS256', secret: SECRET }],
  ['ES256', { algorithm: 'ES256', current, previous: [retired], devKeysFile: undefined }],
] as const)('access tokens with %s', (algorithm, access) => {
  const config = {
    access,
    issuer: ISSUER,
    audience: AUDIENCE,
    accessTtl: 600,
  } as JwtConfig;
  const keys = new AccessTokenKeys(config.access);
  const jwtService = new JwtService(accessJwtOptions(config, keys));
  const tokens = new AccessTokensService(jwtService, keys, config, new SessionClaims());
  const user = Object.assign(new User(), { id: 'user_1', role: 'user', tokenVersion: 3 });
  // The user with one live session, family_1.
  const users = {
    findForAccessCheck: (id: string, sid: string) =>
      id === user.id && sid === 'family_1' ? user : null,
  };
  const strategy = new AccessTokenStrategy(
    config,
    keys,
    users as unknown as UsersService,
    {} as SessionsService,
  );
  /** The key that signs a forged token the service would accept, were it not for one detail. */
  const signingKey =
    algorithm === 'HS256' ? createSecretKey(Buffer.from(SECRET)) : current.privateKey;
  const kid = algorithm === 'HS256' ? {} : { kid: current.kid };
  const now = epochSeconds();
  const claims = {
    sub: user.id,
    sid: 'family_1',
    ver: 3,
    role: 'user',
    jti: 'jti_1',
    iss: ISSUER,
    aud: AUDIENCE,
    iat: now,
    exp: now + 600,
  };
  const forge = (header: Record<string, unknown>, payload: object = claims, key = signingKey) =>
    new SignJWT({ ...payload })
      .setProtectedHeader({ alg: algorithm, typ: 'at+jwt', ...kid, ...header })
      .sign(key);
  const segment = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

  const refused = async (token: string) => {
    const outcome = await authenticate(strategy, token);
    // A failure, never a success or a fault; validate's refusal carries no reason.
    expect(Object.keys(outcome)).toEqual(['failure']);
    return (outcome as { failure: unknown }).failure;
  };

  it('issues RFC 9068 tokens: typ at+jwt, iss, aud, sub, iat, exp, jti, sid, auth_time and amr', () => {
    const { token, expiresIn } = tokens.issue(user, 'family_1', AUTH);
    expect(expiresIn).toBe(600);
    const decoded = jwt.decode(token, { complete: true })!;
    expect(decoded.header).toEqual({ alg: algorithm, typ: 'at+jwt', ...kid });
    expect(decoded.payload).toEqual({
      ...claims,
      jti: expect.stringMatching(/^[0-9a-f-]{36}$/),
      iat: expect.any(Number),
      exp: (decoded.payload as { iat: number }).iat + 600,
      auth_time: Math.floor(AUTH.authTime.getTime() / 1000),
      amr: ['pwd'],
    });
    expect(tokens.verify(token)).toMatchObject({ sub: user.id, sid: 'family_1' });
  });

  it('never issues the same token twice, even in the same second', () => {
    const first = tokens.issue(user, 'family_1', AUTH).token;
    const second = tokens.issue(user, 'family_1', AUTH).token;
    expect(second).not.toBe(first);
  });

  it('is verified by an independent library pinning issuer, audience and type', async () => {
    const { token } = tokens.issue(user, 'family_1', AUTH);
    const key =
      algorithm === 'HS256' ? signingKey : createLocalJWKSet({ keys: [...keys.jwks.keys] });
    const { payload } = await jwtVerify(token, key as Parameters<typeof jwtVerify>[1], {
      algorithms: [algorithm],
      issuer: ISSUER,
      audience: AUDIENCE,
      typ: 'at+jwt',
    });
    expect(payload.sub).toBe(user.id);
  });

  it('accepts its own token and a hand-made one with the same claims', async () => {
    expect(await authenticate(strategy, tokens.issue(user, 'family_1', AUTH).token)).toEqual({
      user,
    });
    expect(await authenticate(strategy, await forge({}))).toEqual({ user });
    expect(await authenticate(strategy, await forge({ typ: 'application/at+jwt' }))).toEqual({
      user,
    });
  });

  it('refuses another issuer, another audience and another type', async () => {
    await refused(await forge({}, { ...claims, iss: 'https://evil.example' }));
    await refused(await forge({}, { ...claims, aud: 'https://other-api.example' }));
    await refused(await forge({ typ: 'JWT' }));
    await refused(await forge({ typ: undefined }));
  });

  it('refuses a critical header extension, which jsonwebtoken would ignore', async () => {
    await refused(await forge({ crit: ['b64'], b64: true }));
  });

  it('says expired for a token past its exp, and refuses one without exp or not yet valid', async () => {
    const expired = await refused(await forge({}, { ...claims, exp: now - 1 }));
    expect(expired).toBeInstanceOf(jwt.TokenExpiredError);
    const noExpiry: Partial<typeof claims> = { ...claims };
    delete noExpiry.exp;
    await refused(await forge({}, noExpiry));
    await refused(await forge({}, { ...claims, nbf: now + 60 }));
  });

  it('refuses a revoked token: the user’s token version has moved on', async () => {
    await refused(await forge({}, { ...claims, ver: 2 }));
    await refused(await forge({}, { ...claims, sub: 'user_2' }));
  });

  it('refuses none, and any algorithm but the configured one', async () => {
    const none = `${segment({ alg: 'none', typ: 'at+jwt', ...kid })}.${segment(claims)}.`;
    await refused(none);
    const otherKey = p256();
    const other =
      algorithm === 'HS256'
        ? await new SignJWT(claims)
            .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: otherKey.kid })
            .sign(otherKey.privateKey)
        : // The public key as an HMAC secret: the classic algorithm confusion.
          await new SignJWT(claims)
            .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt', ...kid })
            .sign(createSecretKey(current.publicKey.export({ format: 'der', type: 'spki' })));
    await refused(other);
    const hs512 = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS512', typ: 'at+jwt', ...kid })
      .sign(createSecretKey(Buffer.from(SECRET)));
    await refused(hs512);
  });

  it('takes keys only from configuration: jwk, jku, x5u and path-like kids choose nothing', async () => {
    const stranger = p256();
    const strangerKey =
      algorithm === 'HS256' ? createSecretKey(Buffer.alloc(32)) : stranger.privateKey;
    const jwk = stranger.publicKey.export({ format: 'jwk' });
    await refused(await forge({ jwk }, claims, strangerKey));
    await refused(await forge({ jku: 'https://evil.example/jwks.json' }, claims, strangerKey));
    await refused(await forge({ x5u: 'https://evil.example/cert.pem' }, claims, strangerKey));
    await refused(await forge({ kid: '../../../../dev/null' }, claims, strangerKey));
    await refused(await forge({ kid: stranger.kid }, claims, strangerKey));
    // A configured kid does not make a stranger's signature good.
    await refused(await forge({}, claims, strangerKey));
  });

  it('refuses a changed payload and malformed tokens', async () => {
    const [header, , signature] = tokens.issue(user, 'family_1', AUTH).token.split('.');
    await refused(`${header}.${segment({ ...claims, role: 'admin' })}.${signature}`);
    for (const token of ['a.b', 'a.b.c.d', `${header}.e30.AAAA`, `${segment([algorithm])}.e30.x`]) {
      await refused(token);
    }
  });

  if (algorithm === 'HS256') {
    it('refuses a second spelling of a valid signature', async () => {
      const token = tokens.issue(user, 'family_1', AUTH).token;
      // 32 bytes take 43 characters; the last one carries 2 spare bits that decoding ignores.
      // jsonwebtoken compares the MAC in its encoded form, so the respelling does not match.
      const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
      const respelled = `${token.slice(0, -1)}${alphabet[alphabet.indexOf(token.at(-1)!) ^ 1]}`;
      expect(Buffer.from(respelled.split('.')[2], 'base64url')).toEqual(
        Buffer.from(token.split('.')[2], 'base64url'),
      );
      await refused(respelled);
    });
  } else {
    it('publishes the current and previous public keys, and nothing private', () => {
      expect(keys.jwks.keys.map((key) => key.kid)).toEqual([current.kid, retired.kid]);
      for (const key of keys.jwks.keys) {
        expect(key).toMatchObject({ alg: 'ES256', use: 'sig', kty: 'EC', crv: 'P-256' });
        expect(key).not.toHaveProperty('d');
      }
    });

    it('verifies a token a previous key signed, named by its kid', async () => {
      const old = await forge({ kid: retired.kid }, claims, retired.privateKey);
      expect(decodeProtectedHeader(old).kid).toBe(retired.kid);
      expect(await authenticate(strategy, old)).toEqual({ user });
      // Without a kid there is no key to pick, even for the current key's signature.
      await refused(await forge({ kid: undefined }));
    });
  }
});
