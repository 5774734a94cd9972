// What a person types as a proof (a code, a password), as the service takes it.
import type { IdentityProof } from './types.js';

/**
 * The six digits as the service takes them: authenticator apps show `123 456`, and a pasted
 * code often brings the space along.
 */
export const digits = (code: string): string => code.replace(/\s+/g, '');

/**
 * `{ password }`, `{ code }` or `{ email_code }` (codes without their spaces), as given: two or
 * none, the service refuses.
 */
export function identityProof(proof: IdentityProof): Record<string, string | undefined> {
  return {
    password: proof.password,
    code: proof.code === undefined ? undefined : digits(proof.code),
    email_code: proof.emailCode === undefined ? undefined : digits(proof.emailCode),
  };
}
