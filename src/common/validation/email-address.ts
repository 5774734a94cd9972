import { isEmail } from 'class-validator';

/**
 * A plain `local@domain`: no quoted local part, no white space, quotes, commas, brackets or
 * backslashes. `IsEmail` alone accepts `"x\r\nBcc: y"@example.com`, which would put a line into a
 * mail header, and `"a,b"@example.com`, which a mailer can read as two recipients.
 */
export const PLAIN_ADDRESS = /^[^\s"(),:;<>[\\\]@]+@[^\s"(),:;<>[\\\]@]+$/;

/**
 * Whether an address from elsewhere (an identity provider) is one registration would take: the
 * same rules as the request fields' (EmailField), so that no other way in stores an address that
 * typing it would have refused.
 */
export function isAcceptedAddress(value: string): boolean {
  return value.length <= 254 && isEmail(value) && PLAIN_ADDRESS.test(value);
}
