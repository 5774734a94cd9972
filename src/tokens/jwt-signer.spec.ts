import { createHmac, createSecretKey } from 'node:crypto';
import { SignJWT, jwtVerify } from 'jose';
import * as jwt from 'jsonwebtoken';
import { JwtSigner, epochSeconds } from './jwt-signer';

const SECRET = 'a-secret-of-thirty-two-characters-or-more';
const segment = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
const hs256 = (input: string, secret = SECRET) =>
  createHmac('sha256', secret).update(input).digest('base64url');
/** A token with any header and claims, signed with the right secret. */
const forge = (header: object, claims: object, secret = SECRET) => {
  const input = `${segment(header)}.${segment(claims)}`;
  return `${input}.${hs256(input, secret)}`;
};

describe('JwtSigner (HS256)', () => {
  const signer = new JwtSigner(SECRET, 'access');
  const now = epochSeconds();
  const claims = { sub: 'user_1', typ: 'access' as const, ver: 0, iat: now, exp: now + 600 };
  const header = { alg: 'HS256', typ: 'JWT' };

  it('makes the token jsonwebtoken makes, byte for byte, and verifies it', () => {
    const token = signer.sign(claims);
    expect(token).toBe(jwt.sign(claims, SECRET, { algorithm: 'HS256' }));
    expect(signer.verify(token)).toEqual(claims);
  });

  it('is verified by an independent library, and verifies what that library signs', async () => {
    const key = createSecretKey(Buffer.from(SECRET));
    const { payload } = await jwtVerify(signer.sign(claims), key, { algorithms: ['HS256'] });
    expect(payload).toEqual(claims);
    const signed = await new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).sign(key);
    expect(signer.verify(signed)).toEqual(claims);
  });

  it('refuses another secret, a changed payload and a changed signature', () => {
    expect(() => signer.verify(forge(header, claims, 'another-secret'))).toThrow(
      'invalid signature',
    );
    const [h, , s] = signer.sign(claims).split('.');
    expect(() => signer.verify(`${h}.${segment({ ...claims, ver: 1 })}.${s}`)).toThrow(
      'invalid signature',
    );
    const flipped = s[0] === 'A' ? `B${s.slice(1)}` : `A${s.slice(1)}`;
    expect(() => signer.verify(`${h}.${segment(claims)}.${flipped}`)).toThrow('invalid signature');
  });

  it('refuses a second spelling of a valid signature', () => {
    const token = signer.sign(claims);
    // 32 bytes take 43 characters; the last one carries 2 spare bits that decoding ignores.
    const last = token.at(-1)!;
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const sibling = alphabet[alphabet.indexOf(last) ^ 1];
    const respelled = `${token.slice(0, -1)}${sibling}`;
    expect(Buffer.from(respelled.split('.')[2], 'base64url')).toEqual(
      Buffer.from(token.split('.')[2], 'base64url'),
    );
    expect(() => signer.verify(respelled)).toThrow('invalid signature');
  });

  it.each([
    ['none', { alg: 'none', typ: 'JWT' }],
    ['another HMAC', { alg: 'HS512', typ: 'JWT' }],
    ['a key-pair algorithm', { alg: 'RS256', typ: 'JWT' }],
    ['no algorithm', { typ: 'JWT' }],
  ])('refuses a header naming %s, even when signed with the secret', (_name, forged) => {
    expect(() => signer.verify(forge(forged, claims))).toThrow('invalid algorithm');
  });

  it('refuses an unsigned token and a critical extension', () => {
    expect(() => signer.verify(`${segment({ alg: 'none' })}.${segment(claims)}.`)).toThrow(
      'jwt malformed',
    );
    expect(() => signer.verify(forge({ ...header, crit: ['exp'] }, claims))).toThrow(
      'unsupported crit header',
    );
  });

  it.each([
    ['two segments', 'a.b'],
    ['four segments', 'a.b.c.d'],
    ['characters outside base64url', 'a+b.c/d.e=f'],
    ['an empty string', ''],
  ])('refuses %s as malformed', (_name, token) => {
    expect(() => signer.verify(token)).toThrow('jwt malformed');
  });

  it('says expired for a token past its exp, and refuses one not yet valid or without exp', () => {
    expect(() => signer.verify(signer.sign({ ...claims, exp: now }), now)).toThrow(
      jwt.TokenExpiredError,
    );
    expect(() => signer.verify(forge(header, { ...claims, nbf: now + 60 }), now)).toThrow(
      jwt.NotBeforeError,
    );
    expect(() => signer.verify(forge(header, { ...claims, nbf: 'soon' }))).toThrow(
      'invalid nbf value',
    );
    const noExpiry: Partial<typeof claims> = { ...claims };
    delete noExpiry.exp;
    expect(() => signer.verify(forge(header, noExpiry))).toThrow('invalid payload');
    expect(() => signer.verify(forge(header, [claims]))).toThrow('invalid payload');
  });
});
