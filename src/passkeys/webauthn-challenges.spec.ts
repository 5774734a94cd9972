import { Repository } from 'typeorm';
import { JwtConfig } from '../config/config.sections';
import { Database } from '../database/database.service';
import { WebAuthnChallenge } from './webauthn-challenge.entity';
import { CHALLENGE_TTL_MS, WebAuthnChallenges } from './webauthn-challenges.service';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

const SECRET = 'a-refresh-secret-0123456789-abcdefghijklmnop';

/**
 * An instance's challenges over a table of ids (shared by instances when given), which refuses a
 * second row with one id, as a primary key does.
 */
function challengesOver(secret = SECRET, ids = new Set<string>()) {
  const table = {
    insert: (row: { id: string }) => {
      if (ids.has(row.id)) {
        return Promise.reject(
          Object.assign(new Error('Duplicate entry'), { code: 'ER_DUP_ENTRY' }),
        );
      }
      ids.add(row.id);
      return Promise.resolve();
    },
  };
  const database = {
    run: (work: (manager: unknown) => unknown) => work({ withRepository: () => table }),
  } as unknown as Database;
  const challenges = new WebAuthnChallenges(
    table as unknown as Repository<WebAuthnChallenge>,
    database,
    { refreshSecret: secret } as JwtConfig,
  );
  return { challenges, ids };
}

describe('WebAuthn challenges carried, not stored', () => {
  it('writes nothing to issue one; its first answer claims it, on any instance, once', async () => {
    const { challenges, ids } = challengesOver();
    const challenge = challenges.issue('sign_in', null);
    expect(challenge).toMatch(/^[\w-]{43}$/);
    expect(ids.size).toBe(0);
    // Another instance: the same secret, the same table.
    const other = challengesOver(SECRET, ids).challenges;
    expect(await challenges.claim(challenge, 'sign_in', null)).toBe(true);
    expect(await challenges.claim(challenge, 'sign_in', null)).toBe(false);
    expect(await other.claim(challenge, 'sign_in', null)).toBe(false);
  });

  it('opens only for its ceremony and user, before it expires, as this service spelled it', async () => {
    const { challenges, ids } = challengesOver();
    const mine = challenges.issue('registration', 'user_1');
    expect(await challenges.claim(mine, 'registration', 'user_2')).toBe(false);
    expect(await challenges.claim(mine, 'second_factor', 'user_1')).toBe(false);
    const old = challenges.issue('registration', 'user_1', new Date(Date.now() - CHALLENGE_TTL_MS));
    expect(await challenges.claim(old, 'registration', 'user_1')).toBe(false);
    // The last character carries 4 bits the bytes do not use: another spelling of them.
    const last = ALPHABET.indexOf(mine.slice(-1));
    const respelled = `${mine.slice(0, -1)}${ALPHABET[last ^ 1]}`;
    expect(Buffer.from(respelled, 'base64url')).toEqual(Buffer.from(mine, 'base64url'));
    expect(await challenges.claim(respelled, 'registration', 'user_1')).toBe(false);
    const flipped = Buffer.from(mine, 'base64url');
    flipped[0] ^= 1;
    expect(await challenges.claim(flipped.toString('base64url'), 'registration', 'user_1')).toBe(
      false,
    );
    const { challenges: elsewhere } = challengesOver(
      'another-services-secret-0123456789-abcdefgh',
      ids,
    );
    expect(await elsewhere.claim(mine, 'registration', 'user_1')).toBe(false);
    expect(ids.size).toBe(0);
    expect(await challenges.claim(mine, 'registration', 'user_1')).toBe(true);
  });
});
