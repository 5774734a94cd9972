import { Secret, TOTP } from 'otpauth';

/** RFC 6238 as every authenticator app reads it by default: SHA-1, 6 digits, 30 seconds. */
const PERIOD = 30;
const DIGITS = 6;
/** Codes of the step before and after now are accepted: clocks and typing take time. */
const WINDOW = 1;

/** A new secret: 160 random bits (RFC 4226's recommendation), base32. */
export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

function totp(secret: string, issuer = '', label = ''): TOTP {
  return new TOTP({
    issuer,
    label,
    algorithm: 'SHA1',
    digits: DIGITS,
    period: PERIOD,
    secret: Secret.fromBase32(secret),
  });
}

/** The `otpauth://` URI an authenticator app reads from the QR code. */
export function totpUri(secret: string, issuer: string, account: string): string {
  return totp(secret, issuer, account).toString();
}

/**
 * The time step of `code` if it is a code of `secret` within one step of now, else null. The
 * caller accepts a step once (a replay is refused).
 */
export function totpStepOf(secret: string, code: string, now = Date.now()): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const delta = totp(secret).validate({ token: code, timestamp: now, window: WINDOW });
  return delta === null ? null : Math.floor(now / 1000 / PERIOD) + delta;
}
