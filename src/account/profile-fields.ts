/*
 * The rules for the profile fields a user sets about themselves, as pure functions: the DTO
 * validates with them and the service stores what they return, so both read the same rule.
 */

export const MAX_NAME_LENGTH = 100;
export const MAX_PICTURE_LENGTH = 2048;

/** Control characters (C0, DEL, C1): never part of a name, and trouble in mail headers and logs. */
const CONTROL = /\p{Cc}/u;

/** The stored form of a display name: trimmed, NFC; empty means "no name" (null). */
export function cleanName(value: string | null): string | null {
  if (value === null) return null;
  const cleaned = value.normalize('NFC').trim();
  return cleaned === '' ? null : cleaned;
}

/** Why a name cannot be stored, or undefined when it can. Counts characters, not UTF-16 units. */
export function nameProblem(value: unknown): string | undefined {
  if (value === null) return undefined;
  if (typeof value !== 'string') return 'name must be a string or null';
  const cleaned = cleanName(value) ?? '';
  if (CONTROL.test(cleaned)) return 'name must not contain control characters';
  if ([...cleaned].length > MAX_NAME_LENGTH) {
    return `name must be at most ${MAX_NAME_LENGTH} characters long`;
  }
  return undefined;
}

/**
 * A picture is an absolute `https:` URL with a host, no `user:password@` (it can make a URL read
 * like another host), no white space or control characters, at most 2048 characters as stored.
 * Returns the parsed URL's normal form, or undefined when the value is not such a URL.
 */
export function normalizePicture(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length > MAX_PICTURE_LENGTH) return undefined;
  if (/\s/u.test(value) || CONTROL.test(value)) return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'https:' || !url.hostname || url.username || url.password) return undefined;
  return url.href.length <= MAX_PICTURE_LENGTH ? url.href : undefined;
}

export const PICTURE_MESSAGE =
  `picture must be an https URL of at most ${MAX_PICTURE_LENGTH} characters, ` +
  'without user name or password, or null';
