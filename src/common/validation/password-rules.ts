import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** `resources/` at the project root, from both `src` and `dist`. */
export const COMMON_PASSWORDS_FILE = join(
  __dirname,
  '..',
  '..',
  '..',
  'resources',
  'common-passwords.txt',
);

/**
 * One form for comparing: compatibility-normalised (a full-width `ｐａｓｓｗｏｒｄ` is `password`)
 * and lower-cased, so a list entry or an identifier in another case still matches.
 */
function comparable(value: string): string {
  return value.normalize('NFKC').toLowerCase();
}

/** Lines of the list file; `#` lines are its source notes. */
export function parsePasswordList(text: string): Set<string> {
  return new Set(
    text
      .split(/\r?\n/)
      .filter((line) => line !== '' && !line.startsWith('#'))
      .map(comparable),
  );
}

/**
 * Read once, when the validation rules are first imported (at boot): each check afterwards is one
 * lookup in a Set. The file ships with the service; an install without it must not start.
 */
const COMMON_PASSWORDS: ReadonlySet<string> = parsePasswordList(
  readFileSync(COMMON_PASSWORDS_FILE, 'utf8'),
);

/** On the shipped list of passwords attackers try first (NIST SP 800-63B), in any case. */
export function isCommonPassword(password: string): boolean {
  return COMMON_PASSWORDS.has(comparable(password));
}

/**
 * The password is one of the account's identifiers: its email address, the address's local part,
 * or its username, in any case. Those are public, or the first guess of anyone who knows them.
 * Values that are not strings (a field that failed its own rule) are passed over.
 */
export function matchesIdentity(password: string, identifiers: readonly unknown[]): boolean {
  const candidate = comparable(password);
  return identifiers.some(
    (identifier) => typeof identifier === 'string' && identityForms(identifier).has(candidate),
  );
}

function identityForms(identifier: string): Set<string> {
  const value = comparable(identifier.trim());
  const at = value.lastIndexOf('@');
  return new Set(at > 0 ? [value, value.slice(0, at)] : [value]);
}

/** What a client reads in `details`; never the password itself. */
export const COMMON_PASSWORD_MESSAGE = (field: string) =>
  `${field} is too common: it is on a list of passwords attackers try first`;
export const IDENTITY_PASSWORD_MESSAGE = (field: string) =>
  `${field} must not be the account's email address, the part before its @, or its username`;
