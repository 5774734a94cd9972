import { createSecretKey } from 'node:crypto';
import { SignJWT } from 'jose';
import * as jwt from 'jsonwebtoken';
import { JwtConfig } from '../../config/config.sections';
import { epochSeconds } from '../../tokens/epoch-seconds';
import { refreshJwtService } from '../../tokens/jwt-options';
import { RefreshTokenKey } from '../../tokens/refresh-token-key';
import { RefreshTokenStrategy } from './refresh-token.strategy';
import { runStrategy } from '../../../test/support/run-strategy';

const REFRESH_SECRET = 'the-refresh-secret-of-thirty-two-characters';
const ACCESS_SECRET = 'the-access-secret-of-thirty-two-characters';

function authenticate(strategy: RefreshTokenStrategy, token: string) {
  return runStrategy(strategy, { headers: {}, cookies: { refresh_token: token } });
}

describe('refresh tokens', () => {
  const key = new RefreshTokenKey({ refreshSecret: REFRESH_SECRET } as JwtConfig);
  const signer = refreshJwtService(key);
  const strategy = new RefreshTokenStrategy(key);
  const now = epochSeconds();
  const claims = {
    sub: 'user_1',
    typ: 'refresh',
    jti: 'jti_1',
    fam: 'family_1',
    iat: now,
    exp: now + 600,
  };
  const refused = async (token: string) => {
    const outcome = await authenticate(strategy, token);
    expect(Object.keys(outcome)).toEqual(['failure']);
    return (outcome as { failure: unknown }).failure;
  };
  const hs256 = (payload: object, secret = REFRESH_SECRET, header: object = {}) =>
    new SignJWT({ ...payload })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT', ...header })
      .sign(createSecretKey(Buffer.from(secret)));

  it('signs HS256 with the refresh secret, the same claims always giving the same token', () => {
    const token = signer.sign({ ...claims });
    expect(token).toBe(signer.sign({ ...claims }));
    expect(token).toBe(jwt.sign(claims, REFRESH_SECRET, { algorithm: 'HS256' }));
    expect(jwt.decode(token, { complete: true })?.header).toEqual({ alg: 'HS256', typ: 'JWT' });
    expect(signer.verify(token)).toEqual(claims);
  });

  it('accepts a refresh token from the cookie', async () => {
    expect(await authenticate(strategy, signer.sign({ ...claims }))).toEqual({ user: claims });
  });

  it('refuses an access token, or anything without the refresh purpose', async () => {
    await refused(await hs256(claims, ACCESS_SECRET, { typ: 'at+jwt' }));
    await refused(await hs256({ ...claims, typ: 'access' }));
    await refused(await hs256({ ...claims, typ: undefined }));
    await refused(await hs256({ ...claims, fam: undefined }));
  });

  it('says expired for a token past its exp', async () => {
    const expired = await refused(await hs256({ ...claims, exp: now - 1 }));
    expect(expired).toBeInstanceOf(jwt.TokenExpiredError);
    await refused(await hs256({ ...claims, exp: undefined }));
  });

  it('refuses none, another algorithm and a critical header', async () => {
    const segment = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
    await refused(`${segment({ alg: 'none' })}.${segment(claims)}.`);
    await refused(
      await new SignJWT(claims)
        .setProtectedHeader({ alg: 'HS512' })
        .sign(createSecretKey(Buffer.from(REFRESH_SECRET))),
    );
    await refused(await hs256(claims, REFRESH_SECRET, { crit: ['b64'], b64: true }));
  });

  it('refuses a second spelling of a valid signature', async () => {
    const token = signer.sign({ ...claims });
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const respelled = `${token.slice(0, -1)}${alphabet[alphabet.indexOf(token.at(-1)!) ^ 1]}`;
    await refused(respelled);
  });
});
