import { readFileSync } from 'node:fs';
import {
  COMMON_PASSWORDS_FILE,
  isCommonPassword,
  matchesIdentity,
  parsePasswordList,
} from './password-rules';

describe('the shipped list of common passwords', () => {
  const text = readFileSync(COMMON_PASSWORDS_FILE, 'utf8');
  const entries = text.split('\n').filter((line) => line !== '' && !line.startsWith('#'));

  it('names its source and holds only passwords the length rule would let through', () => {
    expect(text).toMatch(/^# .*\n(# .*\n|#\n)*.*SecLists/);
    expect(entries.length).toBeGreaterThan(250);
    expect(entries.filter((entry) => [...entry].length < 6)).toEqual([]);
    expect(parsePasswordList(text).size).toBe(entries.length);
  });

  it('matches in any case and compatibility form, and only whole passwords', () => {
    expect(isCommonPassword('password1')).toBe(true);
    expect(isCommonPassword('PassWord1')).toBe(true);
    expect(isCommonPassword('ｑｗｅｒｔｙ')).toBe(true);
    expect(isCommonPassword('password1-and-more')).toBe(false);
    // Source notes are not passwords.
    expect(isCommonPassword('# Source: the most common entries')).toBe(false);
  });
});

describe('matchesIdentity', () => {
  const account = ['Ann.Lee@Example.com', 'ann_lee'];

  it('refuses the address, its local part and the username, in any case', () => {
    for (const password of ['ann.lee@example.com', 'ANN.LEE', 'Ann_Lee']) {
      expect(matchesIdentity(password, account)).toBe(true);
    }
  });

  it('lets through what only contains them, and ignores identifiers that are not strings', () => {
    expect(matchesIdentity('ann.lee-2024!', account)).toBe(false);
    expect(matchesIdentity('example.com', account)).toBe(false);
    expect(matchesIdentity('anything', [undefined, 42, null])).toBe(false);
  });
});
