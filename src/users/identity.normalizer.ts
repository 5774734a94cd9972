/**
 * The normal forms that decide "same account". Decided in code and stored, so uniqueness never
 * depends on a database collation. `toLowerCase` (not upper-casing) keeps `ı` and `i` distinct.
 */
export function normalizeEmail(email: string): string {
  return email.trim().normalize('NFC').toLowerCase();
}

export function cleanEmail(email: string): string {
  return email.trim().normalize('NFC');
}

/** Usernames are ASCII letters, digits, `.`, `_` and `-`, so lower-casing is unambiguous. */
export function normalizeUsername(username: string): string {
  return username.trim().toLowerCase();
}

export const USERNAME_PATTERN = /^[A-Za-z0-9._-]{3,32}$/;
/** The characters of USERNAME_PATTERN, without its length (checked and explained apart). */
export const USERNAME_CHARACTERS = /^[A-Za-z0-9._-]*$/;
