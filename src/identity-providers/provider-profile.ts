/** Who a provider says signed in: its stable subject and what it tells of the person. */
export interface ProviderProfile {
  subject: string;
  email: string | null;
  /** True only when the provider says so (`email_verified`, GitHub's `verified`). */
  emailVerified: boolean;
  /** A hint for the new account's username (`preferred_username`, GitHub's login). */
  username: string | null;
  /**
   * When the person last signed in at the provider (the ID token's `auth_time`, epoch seconds);
   * null when it does not say (GitHub never does).
   */
  authTime: number | null;
}

/** A provider's answer was refused: `detail` is for the log (never a code, token or secret). */
export class ProviderRefused extends Error {
  constructor(readonly detail: string) {
    super(detail);
  }
}
