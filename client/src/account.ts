// The signed-in user's account: the profile, the address (its verification and change), the
// sessions, the deletion. Reached as `auth.account` once `account()` is among the client's
// plugins.
import type { AuthClientPlugin, SessionEngine } from './plugin.js';
import type {
  DataEnvelope,
  EmailLinkInput,
  MessageEnvelope,
  ReauthenticationMethod,
  VerifiedUser,
} from './types.js';

/** The signed-in user's own account (`GET /users/me`). */
export interface Profile extends VerifiedUser {
  /**
   * False for an account made through an identity provider (or whose password a mailed code's
   * first proof of the address removed): it confirms an email change, its deletion and switching
   * its second factor off with a recent sign-in instead, and sets a password through the reset
   * mail (`auth.password.forgot`).
   */
  has_password: boolean;
  /** The proofs this account can give a step-up, in the order to offer them: ask for one of these. */
  reauthentication_methods: ReauthenticationMethod[];
}

/** `PATCH /users/me`: each field given is set; `null` (or `''` for `name`) clears it. */
export interface ProfileUpdate {
  username?: string;
  name?: string | null;
  /** An absolute https URL; nothing is uploaded. */
  picture?: string | null;
}

export interface EmailChangeInput {
  /** The current password; left out by an account without one (`has_password: false`). */
  password?: string;
  newEmail: string;
  /** Where the emailed link points; its origin must be one of the service's `APP_ORIGINS`. */
  applicationUrl?: string;
}

export interface VerifyEmailInput {
  token: string;
  applicationUrl?: string;
}

/** One signed-in device or browser: a refresh-token family. */
export interface SessionInfo {
  /** The access token's `sid`. */
  id: string;
  /** ISO 8601: the login. */
  created_at: string;
  /** ISO 8601: the last refresh. */
  last_used_at: string;
  /**
   * ISO 8601: when the session ends unless refreshed before; the earlier of the refresh token's
   * expiry and the login plus the service's SESSION_MAX_AGE, which no refresh goes past.
   */
  expires_at: string;
  ip: string | null;
  user_agent: string | null;
  /** The session making this request. */
  current: boolean;
}

/** `createAuthClient({ baseUrl, plugins: [account()] })`, then `auth.account.getProfile()`. */
export const account = (): AuthClientPlugin<'account', AccountClient> => ({
  id: 'account',
  create: (engine) => new AccountClient(engine),
});

export class AccountClient {
  constructor(private readonly engine: SessionEngine) {}

  /** The signed-in user's own profile (`GET /users/me`), refreshing first if need be. */
  getProfile(): Promise<DataEnvelope<{ user: Profile }>> {
    return this.engine.authed('GET', '/users/me');
  }

  /** Sets the fields given; `409 REGISTRATION_FAILED` when the username is taken. */
  updateProfile(input: ProfileUpdate): Promise<DataEnvelope<{ user: Profile }>> {
    return this.engine.authed('PATCH', '/users/me', input);
  }

  /** The token of the link a verification mail carried; needs no session. */
  verifyEmail(
    input: VerifyEmailInput,
  ): Promise<DataEnvelope<{ user: VerifiedUser; redirect_url?: string }>> {
    return this.engine.call('POST', '/auth/verify-email', input);
  }

  resendVerificationEmail(input: EmailLinkInput): Promise<MessageEnvelope> {
    return this.engine.call('POST', '/auth/resend-verification-email', input);
  }

  /**
   * Mails a single-use link to the new address; nothing changes until it is confirmed. Confirmed
   * by the current password, or for an account without one (`has_password: false`) by a recent
   * sign-in (`403 REAUTHENTICATION_REQUIRED`: `auth.reauthenticate`, then call again).
   */
  requestEmailChange(input: EmailChangeInput): Promise<MessageEnvelope> {
    return this.engine.authed('POST', '/users/me/email', input);
  }

  /** The emailed link's token; needs no session (the link may be opened on another device). */
  confirmEmailChange(input: { token: string }): Promise<DataEnvelope<{ user: Profile }>> {
    return this.engine.call('POST', '/users/me/email/confirm', { token: input.token });
  }

  /**
   * The token of the undo link mailed to the old address once a change is made: the account
   * moves back and every session of it ends (sign in again, and choose a new password).
   */
  undoEmailChange(input: { token: string }): Promise<DataEnvelope<{ user: Profile }>> {
    return this.engine.call('POST', '/users/me/email/undo', { token: input.token });
  }

  /**
   * Deletes the account, confirmed by the current password, or for an account without one by a
   * recent sign-in (`403 REAUTHENTICATION_REQUIRED`: `auth.reauthenticate`, then call again);
   * every tab hears the end.
   */
  async delete(input: { password?: string } = {}): Promise<MessageEnvelope> {
    const result = await this.engine.authed('DELETE', '/users/me', { password: input.password });
    this.engine.ended('account-deleted');
    return result;
  }

  /** The user's live sessions, the one making the call marked `current`. */
  listSessions(): Promise<DataEnvelope<{ sessions: SessionInfo[] }>> {
    return this.engine.authed('GET', '/users/me/sessions');
  }

  /** Ends one session of the user; ending the current one is a logout of this browser. */
  async endSession(id: string): Promise<DataEnvelope<{ current: boolean }>> {
    const result = await this.engine.authed<DataEnvelope<{ current: boolean }>>(
      'DELETE',
      `/users/me/sessions/${encodeURIComponent(id)}`,
    );
    if (result.data.current) this.engine.ended('logout');
    return result;
  }

  /** Ends every session of the user but this one. */
  endOtherSessions(): Promise<DataEnvelope<{ ended: number }>> {
    return this.engine.authed('POST', '/users/me/sessions/end-others');
  }
}
