/**
 * Every email address the service takes or answers: class-validator's `IsEmail` accepts
 * internationalised local parts and domains (`josé@exämple.com`), which `format: email` (ASCII
 * only, RFC 5321) would tell a client to refuse.
 */
export const EMAIL_ADDRESS = {
  format: 'idn-email',
  description: 'An email address; internationalised ones (RFC 6531) are accepted.',
  example: 'ann@example.com',
} as const;
