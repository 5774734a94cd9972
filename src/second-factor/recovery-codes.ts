import { createHash, randomInt } from 'node:crypto';

export const RECOVERY_CODES = 10;
/** Base32 without the letters and digits people confuse (0/O, 1/I/L). */
const ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
const LENGTH = 10;

/** `XXXXX-XXXXX`: ten characters of a 31-letter alphabet, about 50 random bits. */
export function newRecoveryCode(): string {
  let code = '';
  for (let i = 0; i < LENGTH; i++) code += ALPHABET[randomInt(ALPHABET.length)];
  return `${code.slice(0, 5)}-${code.slice(5)}`;
}

/**
 * What is stored for a code: the SHA-256 of its normal form (upper case, no dashes or spaces),
 * so a code typed in lower case or without its dash still matches. Random codes need no slow
 * hash: there is no dictionary to try.
 */
export function recoveryCodeHash(typed: string): string {
  const normal = typed.replace(/[\s-]/g, '').toUpperCase();
  return createHash('sha256').update(`recovery:${normal}`).digest('hex');
}
