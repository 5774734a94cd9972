// A code by email as a way in: six digits and a link, mailed. Reached as `auth.emailCode` once
// `emailCode()` is among the client's plugins.
import type { AuthClientPlugin, SessionEngine } from './plugin.js';
import { digits } from './proofs.js';
import type { DataEnvelope, EmailLinkInput, LoginResult } from './types.js';

/**
 * Signing in with a code by email: the six digits the mail shows, with the address they went to,
 * or the token of the mail's link (the `token` query parameter of the page it opened).
 */
export type EmailCodeInput =
  { email: string; code: string; token?: never } | { token: string; email?: never; code?: never };

/** `createAuthClient({ baseUrl, plugins: [emailCode()] })`, then `auth.emailCode.request(…)`. */
export const emailCode = (): AuthClientPlugin<'emailCode', EmailCodeClient> => ({
  id: 'emailCode',
  create: (engine) => new EmailCodeClient(engine),
});

export class EmailCodeClient {
  constructor(private readonly engine: SessionEngine) {}

  /**
   * Mails the account a six-digit sign-in code and a link (to `applicationUrl?token=…`; its
   * origin must be one of the service's `APP_ORIGINS`), both good once for `data.expires_in`
   * seconds (EMAIL_CODE_TTL, ten minutes by default). `404 USER_NOT_FOUND` for an address no
   * account uses (unless the service hides which addresses have one), `429 RATE_LIMITED` when
   * the address has had its mails for now.
   */
  request(input: EmailLinkInput): Promise<DataEnvelope<{ expires_in: number }>> {
    return this.engine.call('POST', '/auth/email-code', input);
  }

  /**
   * Signs in with the mailed code (`{ email, code }`; spaces are dropped) or the token of its
   * link (`{ token }`), exactly as a password does: a session, or for an account with a second
   * factor the second step to take first (`isSecondFactorRequired`). `401 LOGIN_FAILED`: a
   * wrong, used or expired code (ask for a new one after a few wrong ones).
   */
  signIn(input: EmailCodeInput): Promise<LoginResult> {
    const body =
      input.token !== undefined ? { token: input.token } : { ...input, code: digits(input.code) };
    return this.engine.signIn<LoginResult>('/auth/email-code/verify', body);
  }
}
