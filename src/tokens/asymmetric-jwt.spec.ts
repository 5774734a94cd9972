import { createSecretKey, generateKeyPairSync } from 'node:crypto';
import { SignJWT, createLocalJWKSet, jwtVerify } from 'jose';
import * as jwt from 'jsonwebtoken';
import { AsymmetricAlgorithm, SigningKey, verificationKey } from '../config/signing-keys';
import { AsymmetricJwt } from './asymmetric-jwt';
import { epochSeconds } from './jwt-signer';

function keyPair(algorithm: AsymmetricAlgorithm): SigningKey {
  const { privateKey, publicKey } =
    algorithm === 'EdDSA'
      ? generateKeyPairSync('ed25519')
      : generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return { ...verificationKey(publicKey), privateKey };
}

const segment = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe.each(['EdDSA', 'ES256'] as const)('AsymmetricJwt with %s', (algorithm) => {
  const current = keyPair(algorithm);
  const retired = keyPair(algorithm);
  const codec = new AsymmetricJwt(algorithm, current, [retired]);
  const now = epochSeconds();
  const claims = { sub: 'user_1', typ: 'access', ver: 0, role: 'user', iat: now, exp: now + 600 };

  it('signs with the current key, naming it, and verifies its own tokens', () => {
    const token = codec.sign(claims);
    expect(jwt.decode(token, { complete: true })?.header).toEqual({
      alg: algorithm,
      typ: 'JWT',
      kid: current.kid,
    });
    expect(codec.verify(token)).toEqual(claims);
  });

  it('is verified by an independent library from the published key set alone', async () => {
    const { payload, protectedHeader } = await jwtVerify(
      codec.sign(claims),
      createLocalJWKSet(codec.jwks),
      { algorithms: [algorithm] },
    );
    expect(payload).toEqual(claims);
    expect(protectedHeader.kid).toBe(current.kid);
  });

  it('publishes the current and the previous public keys, and nothing private', () => {
    expect(codec.jwks.keys.map((key) => key.kid)).toEqual([current.kid, retired.kid]);
    for (const key of codec.jwks.keys) {
      expect(key).toMatchObject({
        alg: algorithm,
        use: 'sig',
        kty: algorithm === 'EdDSA' ? 'OKP' : 'EC',
      });
      expect(key).not.toHaveProperty('d');
    }
  });

  it('verifies a token signed by a previous key', async () => {
    const token = await new SignJWT(claims)
      .setProtectedHeader({ alg: algorithm, kid: retired.kid })
      .sign(retired.privateKey);
    expect(codec.verify(token)).toEqual(claims);
  });

  it('refuses a token by a key it does not know, even one that names a known kid', async () => {
    const stranger = keyPair(algorithm);
    const unknownKid = await new SignJWT(claims)
      .setProtectedHeader({ alg: algorithm, kid: stranger.kid })
      .sign(stranger.privateKey);
    expect(() => codec.verify(unknownKid)).toThrow('unknown kid');
    const forged = await new SignJWT(claims)
      .setProtectedHeader({ alg: algorithm, kid: current.kid })
      .sign(stranger.privateKey);
    expect(() => codec.verify(forged)).toThrow('invalid signature');
    const noKid = await new SignJWT(claims)
      .setProtectedHeader({ alg: algorithm })
      .sign(current.privateKey);
    expect(() => codec.verify(noKid)).toThrow('unknown kid');
  });

  it('refuses any other algorithm: HS256 (with the public key as secret), none, the other curve', async () => {
    const publicAsSecret = createSecretKey(
      current.publicKey.export({ format: 'der', type: 'spki' }),
    );
    const hs256 = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256', kid: current.kid })
      .sign(publicAsSecret);
    expect(() => codec.verify(hs256)).toThrow('invalid algorithm');
    const none = `${segment({ alg: 'none', kid: current.kid })}.${segment(claims)}.`;
    expect(() => codec.verify(none)).toThrow('jwt malformed');
    const other = algorithm === 'EdDSA' ? 'ES256' : 'EdDSA';
    const otherKey = keyPair(other);
    const otherToken = await new SignJWT(claims)
      .setProtectedHeader({ alg: other, kid: current.kid })
      .sign(otherKey.privateKey);
    expect(() => codec.verify(otherToken)).toThrow('invalid algorithm');
  });

  it('refuses a changed payload, an expired token, one not yet valid, and crit headers', async () => {
    const [header, , signature] = codec.sign(claims).split('.');
    const tampered = `${header}.${segment({ ...claims, role: 'admin' })}.${signature}`;
    expect(() => codec.verify(tampered)).toThrow('invalid signature');

    const expired = codec.sign({ ...claims, exp: now - 1 });
    expect(() => codec.verify(expired)).toThrow(jwt.TokenExpiredError);
    expect(() => codec.verify(codec.sign({ ...claims, exp: now + 10 }), now + 10)).toThrow(
      jwt.TokenExpiredError,
    );
    expect(() => codec.verify(codec.sign({ ...claims, nbf: now + 60 }))).toThrow(
      jwt.NotBeforeError,
    );
    expect(() => codec.verify(codec.sign({ ...claims, exp: undefined }))).toThrow(
      'invalid payload',
    );

    const critical = await new SignJWT(claims)
      .setProtectedHeader({ alg: algorithm, kid: current.kid, crit: ['b64'], b64: true })
      .sign(current.privateKey);
    expect(() => codec.verify(critical)).toThrow('unsupported crit header');
  });

  it('refuses a second spelling of a valid signature', () => {
    const token = codec.sign(claims);
    // 64 bytes take 86 characters; the last one carries 4 spare bits that decoding ignores.
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const respelled = `${token.slice(0, -1)}${alphabet[alphabet.indexOf(token.at(-1)!) ^ 1]}`;
    expect(Buffer.from(respelled.split('.')[2], 'base64url')).toEqual(
      Buffer.from(token.split('.')[2], 'base64url'),
    );
    expect(() => codec.verify(respelled)).toThrow('invalid signature');
  });

  it.each([
    ['an empty string', ''],
    ['two segments', 'a.b'],
    ['four segments', 'a.b.c.d'],
    ['padding', `${segment({ alg: algorithm })}=.e30.AAAA`],
    ['a header that is not an object', `${segment([algorithm])}.e30.AAAA`],
    ['a short signature', `${segment({ alg: algorithm, kid: current.kid })}.e30.AAAA`],
  ])('refuses %s as malformed or invalid', (_name, token) => {
    expect(() => codec.verify(token)).toThrow(jwt.JsonWebTokenError);
  });
});
