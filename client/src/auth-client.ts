import { AdminClient } from './admin-client.js';
import { AuthError } from './auth-error.js';
import { readBare, readEnvelope, refusesSession } from './envelope.js';
import {
  digits,
  isChallengeEnvelope,
  isSecondFactorRequired,
  secondStep,
} from './second-factor.js';
import {
  browserSupportsWebAuthn,
  browserSupportsWebAuthnAutofill,
  createPasskey,
  usePasskey,
} from './passkeys.js';
import { providerStartUrl, readProviderReturn } from './identity-providers.js';
import { asAuthError, asUnexpected, isTokenResponse, notify, transport } from './transport.js';
import { RenewalTimer, globalTimers, type Timers } from './renewal-timer.js';
import { SessionRefresher, type RefreshResult } from './session-refresher.js';
import { browserCoordination, type TabCoordination, type TabMessage } from './tab-coordination.js';
import type {
  ChangePasswordInput,
  DataEnvelope,
  EmailChangeInput,
  EmailCodeInput,
  EmailLinkInput,
  IdentityProof,
  IdentityProvider,
  LinkedIdentity,
  ProviderReturn,
  LoginInput,
  LoginResult,
  LogoutScope,
  MessageEnvelope,
  Passkey,
  PasswordResetRequestInput,
  Profile,
  ProfileUpdate,
  RecoveryCodes,
  RegisterInput,
  ResetPasswordInput,
  SecondFactorInput,
  SecondFactorStatus,
  SessionEndReason,
  SessionInfo,
  SessionStart,
  SessionStatus,
  SignedInResult,
  SignInMethod,
  TokenLoginResult,
  TokenResponse,
  TotpEnrolment,
  User,
  UserResult,
  VerifiedUser,
  VerifyEmailInput,
} from './types.js';

export interface AuthClientOptions {
  /** The service's base URL, version included: `https://auth.example.com/api/v1`. */
  baseUrl: string;
  /** Defaults to the global `fetch`. */
  fetch?: typeof fetch;
  /** Which answers of your own API (`client.fetch`) mean "sign in again". Default: status 401. */
  isAuthFailure?: (response: Response) => boolean;
  /** How long a refresh may take before it counts as failed. Default: 10 000 ms. */
  refreshTimeoutMs?: number;
  /** Defaults to Web Locks, localStorage and BroadcastChannel, where the browser has them. */
  coordination?: TabCoordination;
  /**
   * Renews the session a little before the access token expires (at 80% of its lifetime, at
   * least a second before it), so that a signed-in page sends no request the service refuses
   * with a 401. Default: true. Off, the session is renewed only when a call comes back 401.
   */
  renewAhead?: boolean;
  /** The timers the renewal ahead of expiry uses. Default: the global `setTimeout`. */
  timers?: Timers;
}

type SessionState = 'unknown' | 'signed-in' | 'signed-out';
type EndListener = (reason: SessionEndReason) => void;
type StartListener = (start: SessionStart) => void;
type SessionData = { user: User | null; refreshable: boolean; expires_in?: number | null };
type PasskeyCreation = Parameters<typeof createPasskey>[0];
type PasskeyRequest = Parameters<typeof usePasskey>[0];

/**
 * The service's endpoints, one typed method each, over cookies only: the tokens live in HttpOnly
 * cookies the browser sends (`credentials: 'include'`), never in JavaScript. Authenticated calls
 * that come back 401 are retried once after one shared refresh; when the refresh is refused, the
 * session has ended and `onSessionEnded` listeners hear it, in every tab of the app. Every
 * failure, `fetch`'s included, rejects with `AuthError`.
 */
export class AuthClient {
  private readonly baseUrl: string;
  private readonly send: typeof fetch;
  private readonly isAuthFailure: (response: Response) => boolean;
  private readonly refreshTimeoutMs: number;
  private readonly tabs: TabCoordination;
  private readonly refresher: SessionRefresher;
  /** The next renewal ahead of the access token's expiry; none while signed out. */
  private readonly renewal: RenewalTimer;
  private readonly renewAhead: boolean;
  private readonly endListeners = new Set<EndListener>();
  private readonly startListeners = new Set<StartListener>();
  /** The administration routes, for a user with `role: admin`. */
  readonly admin: AdminClient;
  private state: SessionState = 'unknown';
  /** When this tab last saw a session start or renew (here or, by message, in another tab). */
  private lastSignIn = 0;
  /** Requests on their way whose success replaces this browser's cookies (authedReplacing). */
  private readonly replacements = new Set<Promise<Response>>();

  constructor(options: AuthClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    // Bound: some browsers refuse a `fetch` called with another `this`.
    this.send = options.fetch ?? globalThis.fetch.bind(globalThis);
    this.isAuthFailure = options.isAuthFailure ?? ((response) => response.status === 401);
    this.refreshTimeoutMs = options.refreshTimeoutMs ?? 10_000;
    // Long enough for the tab ahead to finish its own (bounded) refresh.
    this.tabs =
      options.coordination ?? browserCoordination(this.baseUrl, 3 * this.refreshTimeoutMs);
    this.refresher = new SessionRefresher(this.tabs, () => this.postRefresh());
    this.renewAhead = options.renewAhead ?? true;
    this.renewal = new RenewalTimer(options.timers ?? globalTimers, (scheduledAt) => {
      void this.renewBeforeExpiry(scheduledAt);
    });
    this.tabs.listen((message) => this.heard(message));
    this.admin = new AdminClient((method, path, body) => this.authed(method, path, body));
  }

  /**
   * Who is signed in, for a page that opens: `signed-in` with the user, `signed-out`, or
   * `unavailable` when the service cannot say now (unreachable, 5xx, 429) and the session may
   * well be alive. Makes no failing request for a visitor, and renews an expired access token
   * first when a refresh cookie is there.
   */
  async status(): Promise<SessionStatus> {
    try {
      let sentAt = Date.now();
      let { data } = await this.call<DataEnvelope<SessionData>>('GET', '/auth/session');
      // As in withSession: another tab's refresh that did not help is followed by one of ours.
      for (let round = 0; round < 2 && !data.user && data.refreshable; round++) {
        const result = await this.refresher.refresh(sentAt);
        if (result.outcome === 'failed') return { state: 'unavailable', error: result.error };
        if (result.outcome === 'refused') break;
        sentAt = Date.now();
        ({ data } = await this.call<DataEnvelope<SessionData>>('GET', '/auth/session'));
        if (result.byThisTab) break;
      }
      if (data.user) {
        this.signedIn();
        this.scheduleRenewal(data.expires_in, sentAt);
        return { state: 'signed-in', user: data.user };
      }
      this.ended('refresh-failed', false);
      return { state: 'signed-out' };
    } catch (error) {
      return { state: 'unavailable', error: asAuthError(error) };
    }
  }

  register(input: RegisterInput): Promise<UserResult> {
    return this.call<UserResult>('POST', '/auth/register', input);
  }

  /**
   * Signs in, or, for an account with a second factor, answers the second step to take first
   * (no session yet: `isSecondFactorRequired(result)`, then `verifySecondFactor`).
   */
  login(input: LoginInput): Promise<LoginResult> {
    return this.signIn<LoginResult>('/auth/login', input);
  }

  /**
   * The second step of a login: the challenge `login()` answered, with the authenticator app's
   * six digits (`code`; spaces are dropped) or one of the recovery codes (`recovery_code`).
   * Signs in exactly as `login()` does. `401 INVALID_MFA_CODE`: a wrong or used code, try again
   * with the same challenge; `401 INVALID_TOKEN`: the challenge is used or has expired (five
   * minutes), log in again.
   */
  verifySecondFactor(input: SecondFactorInput): Promise<SignedInResult> {
    return this.signIn<SignedInResult>('/auth/mfa/verify', secondStep(input));
  }

  /**
   * Mails the account a six-digit sign-in code and a link (to `applicationUrl?token=…`; its
   * origin must be one of the service's `APP_ORIGINS`), both good once for `data.expires_in`
   * seconds (EMAIL_CODE_TTL, ten minutes by default). `404
   * USER_NOT_FOUND` for an address no account uses (unless the service hides which addresses
   * have one), `429 RATE_LIMITED` when the address has had its mails for now.
   */
  requestEmailCode(input: EmailLinkInput): Promise<DataEnvelope<{ expires_in: number }>> {
    return this.call('POST', '/auth/email-code', input);
  }

  /**
   * Signs in with the mailed code (`{ email, code }`; spaces are dropped) or the token of its
   * link (`{ token }`), exactly as `login()` does: a session, or for an account with a second
   * factor the second step to take first (`isSecondFactorRequired`). `401 LOGIN_FAILED`: a
   * wrong, used or expired code (ask for a new one after a few wrong ones).
   */
  async verifyEmailCode(input: EmailCodeInput): Promise<LoginResult> {
    const body =
      input.token !== undefined ? { token: input.token } : { ...input, code: digits(input.code) };
    return this.signIn<LoginResult>('/auth/email-code/verify', body);
  }

  /**
   * For non-browser clients (a CLI, a server): the tokens in the answer instead of cookies
   * (`X-Token-Delivery: body`). Send the access token as `Authorization: Bearer`; keep the
   * refresh token for `refreshForTokens`. Leaves this client's cookie session alone. In a
   * browser the service refuses it (400 VALIDATION_ERROR): a page never reads a refresh token.
   * For an account with a second factor it answers the second step instead
   * (`isSecondFactorRequired`), for `verifySecondFactorForTokens`.
   */
  async loginForTokens(input: LoginInput): Promise<TokenLoginResult> {
    const response = await this.request('POST', '/auth/login', input, {
      'x-token-delivery': 'body',
    });
    return readBare<TokenLoginResult>(
      response,
      (body) => isTokenResponse(body) || isChallengeEnvelope(body),
    );
  }

  /** `loginForTokens`' second step: as `verifySecondFactor`, answering the tokens. */
  async verifySecondFactorForTokens(input: SecondFactorInput): Promise<TokenResponse> {
    const response = await this.request('POST', '/auth/mfa/verify', secondStep(input), {
      'x-token-delivery': 'body',
    });
    return readBare<TokenResponse>(response, isTokenResponse);
  }

  /**
   * For non-browser clients: a refresh token (from `loginForTokens`) exchanged for new tokens.
   * It is sent as the `refresh_token` cookie, which only a non-browser `fetch` may set.
   */
  async refreshForTokens(refreshToken: string): Promise<TokenResponse> {
    const response = await this.request('POST', '/auth/refresh', undefined, {
      'x-token-delivery': 'body',
      cookie: `refresh_token=${encodeURIComponent(refreshToken)}`,
    });
    return readBare<TokenResponse>(response, isTokenResponse);
  }

  /**
   * Ends the session on every device (`scope: 'all'`, the default), only this one (`current`), or
   * every other one (`others`, which keeps this one). An ended session counts as ended here even
   * when the service says there was none left (401): either way nobody is signed in.
   */
  async logout(options: { scope?: LogoutScope } = {}): Promise<MessageEnvelope> {
    const endsThis = options.scope !== 'others';
    const body = options.scope === undefined ? undefined : { scope: options.scope };
    const send = () => this.call('POST', '/auth/logout', body);
    try {
      const result = endsThis ? await this.betweenRefreshes(send) : await send();
      if (endsThis) this.ended('logout', true);
      return result;
    } catch (error) {
      // 401: no session was left to end. Anything else (offline, 5xx): the session may well
      // still be alive, and nobody should believe they are signed out.
      if (endsThis && error instanceof AuthError && error.status === 401) {
        this.ended('logout', true);
      }
      throw error;
    }
  }

  /**
   * Sends a logout when no refresh is on its way, in this tab or another: one the service got
   * after the logout would be refused, a failed request for nothing. The renewal ahead stops
   * first; should the logout fail, a refused call still refreshes. A lock not had in time (a
   * tab's refresh hangs) does not keep anyone signed in: the logout goes without it.
   */
  private async betweenRefreshes<R>(send: () => Promise<R>): Promise<R> {
    this.renewal.cancel();
    let sent = false;
    try {
      return await this.tabs.exclusive(() => {
        sent = true;
        return send();
      });
    } catch (error) {
      if (sent) throw error;
      return send();
    }
  }

  /**
   * Renews the cookies now. Usually unnecessary: authenticated calls refresh when they must. A
   * refused refresh ends the session, as an automatic one does.
   */
  async refresh(): Promise<SignedInResult> {
    const sentAt = Date.now();
    let response: Response;
    try {
      response = await this.tabs.exclusive(() => this.sendRefresh());
    } catch (error) {
      if (error instanceof AuthError) throw error;
      throw new AuthError('NETWORK_ERROR', 'Another tab’s refresh did not finish in time', 0);
    }
    this.afterRefresh(response, sentAt);
    const result = await readEnvelope<SignedInResult>(response);
    this.renewed(result.data.expires_in, sentAt);
    return result;
  }

  /**
   * The signed-in user, refreshing the access token first if it has expired. `INVALID_TOKEN`
   * means signed out; a refresh that failed for a passing reason rejects with that reason.
   */
  async verifyToken(): Promise<UserResult> {
    const result = await this.authed<UserResult>('GET', '/auth/verify-token');
    this.signedIn();
    return result;
  }

  /** The signed-in user's own profile (`GET /users/me`), refreshing first if need be. */
  getProfile(): Promise<DataEnvelope<{ user: Profile }>> {
    return this.authed('GET', '/users/me');
  }

  /** Sets the fields given; `409 REGISTRATION_FAILED` when the username is taken. */
  updateProfile(input: ProfileUpdate): Promise<DataEnvelope<{ user: Profile }>> {
    return this.authed('PATCH', '/users/me', input);
  }

  /**
   * Confirmed by the current password (`403 INVALID_PASSWORD` otherwise). The service ends every
   * session of the user and answers this browser with a new one (new cookies): the other tabs of
   * the app go on with it, every other device is signed out.
   */
  async changePassword(input: ChangePasswordInput): Promise<SignedInResult> {
    const sentAt = Date.now();
    const result = await this.authedReplacing<SignedInResult>('POST', '/users/me/password', input);
    const expiresIn = result.data.expires_in;
    this.scheduleRenewal(expiresIn, sentAt);
    this.tabs.announce({ type: 'signed-in', user: result.data.user, expiresIn, sentAt });
    return result;
  }

  /**
   * Mails a single-use link to the new address; nothing changes until it is confirmed. Confirmed
   * by the current password, or for an account without one (`has_password: false`) by a recent
   * sign-in (`403 REAUTHENTICATION_REQUIRED`: `reauthenticate`, then call again).
   */
  requestEmailChange(input: EmailChangeInput): Promise<MessageEnvelope> {
    return this.authed('POST', '/users/me/email', input);
  }

  /** The emailed link's token; needs no session (the link may be opened on another device). */
  confirmEmailChange(input: { token: string }): Promise<DataEnvelope<{ user: Profile }>> {
    return this.call('POST', '/users/me/email/confirm', { token: input.token });
  }

  /**
   * The token of the undo link mailed to the old address once a change is made: the account
   * moves back and every session of it ends (sign in again, and choose a new password).
   */
  undoEmailChange(input: { token: string }): Promise<DataEnvelope<{ user: Profile }>> {
    return this.call('POST', '/users/me/email/undo', { token: input.token });
  }

  /**
   * Deletes the account, confirmed by the current password, or for an account without one by a
   * recent sign-in (`403 REAUTHENTICATION_REQUIRED`: `reauthenticate`, then call again); every
   * tab hears the end.
   */
  async deleteAccount(input: { password?: string } = {}): Promise<MessageEnvelope> {
    const result = await this.authed('DELETE', '/users/me', { password: input.password });
    this.ended('account-deleted', true);
    return result;
  }

  /** The user's live sessions, the one making the call marked `current`. */
  listSessions(): Promise<DataEnvelope<{ sessions: SessionInfo[] }>> {
    return this.authed('GET', '/users/me/sessions');
  }

  /** Ends one session of the user; ending the current one is a logout of this browser. */
  async endSession(id: string): Promise<DataEnvelope<{ current: boolean }>> {
    const result = await this.authed<DataEnvelope<{ current: boolean }>>(
      'DELETE',
      `/users/me/sessions/${encodeURIComponent(id)}`,
    );
    if (result.data.current) this.ended('logout', true);
    return result;
  }

  /** Ends every session of the user but this one. */
  endOtherSessions(): Promise<DataEnvelope<{ ended: number }>> {
    return this.authed('POST', '/users/me/sessions/end-others');
  }

  /** Whether two-step sign-in is on, and how many recovery codes are left. */
  getSecondFactor(): Promise<DataEnvelope<SecondFactorStatus>> {
    return this.authed('GET', '/users/me/mfa');
  }

  /**
   * Starts switching two-step sign-in on: a new secret, as a QR code (`qr_svg`, an `<img>`'s
   * `src`) and as text to type. Nothing changes until `confirmTotpEnrolment` sends a code
   * computed from it; calling this again replaces the secret. Needs a recent sign-in (`403
   * REAUTHENTICATION_REQUIRED`: `reauthenticate`, then call again).
   */
  beginTotpEnrolment(): Promise<DataEnvelope<TotpEnrolment>> {
    return this.authed('POST', '/users/me/mfa/totp');
  }

  /**
   * Switches two-step sign-in on with the app's first code (spaces are dropped) and answers the
   * ten recovery codes, shown this once. `401 INVALID_MFA_CODE` for a wrong code: the session
   * is fine, ask again.
   */
  confirmTotpEnrolment(code: string): Promise<DataEnvelope<RecoveryCodes>> {
    return this.authed('POST', '/users/me/mfa/totp/confirm', { code: digits(code) });
  }

  /** Ten new recovery codes; the old ones stop working. Needs a recent sign-in. */
  regenerateRecoveryCodes(): Promise<DataEnvelope<RecoveryCodes>> {
    return this.authed('POST', '/users/me/mfa/recovery-codes');
  }

  /**
   * Switches two-step sign-in off, confirmed by a code of the app or the password (`401
   * INVALID_MFA_CODE`, `403 INVALID_PASSWORD`); an account without a password may give neither
   * (`disableTotp()`), its recent sign-in is the proof. Needs a recent sign-in.
   */
  disableTotp(proof?: { password: string } | { code: string }): Promise<MessageEnvelope> {
    return this.authed('DELETE', '/users/me/mfa/totp', proof ? identityProof(proof) : {});
  }

  /**
   * Step-up: authenticates this session again, after a call answered `403
   * REAUTHENTICATION_REQUIRED` (its sign-in is older than the service's STEP_UP_MAX_AGE), or
   * `403 SECOND_FACTOR_REQUIRED` (a role that must show a second factor: a code of the app or a
   * passkey); then call that again. With the password, a code of the app, or the code
   * `requestReauthenticationCode` mailed (`{ emailCode }`); `getProfile()` says which the account
   * has (`reauthentication_methods`). The session stays the same; its cookies are renewed.
   */
  async reauthenticate(proof: IdentityProof): Promise<SignedInResult> {
    return this.steppedUp(identityProof(proof));
  }

  /**
   * Mails a six-digit code to the account's address, for `reauthenticate({ emailCode })`: the
   * proof every account has, one without a password included. `data.expires_in`: its lifetime
   * in seconds. `429 RATE_LIMITED` when the address has had its code mails for now.
   */
  requestReauthenticationCode(): Promise<DataEnvelope<{ expires_in: number }>> {
    return this.authed('POST', '/auth/reauthenticate/email-code');
  }

  /**
   * Step-up with one of the account's passkeys: the browser's prompt (user verification), then
   * `reauthenticate` with its answer. Rejects with `PASSKEY_CANCELLED` when the prompt is
   * dismissed, `401 INVALID_PASSKEY` when the service refuses it.
   */
  async reauthenticateWithPasskey(): Promise<SignedInResult> {
    const begun = await this.authed<DataEnvelope<{ options: PasskeyRequest }>>(
      'POST',
      '/auth/reauthenticate/passkey/options',
    );
    const passkey = await usePasskey(begun.data.options);
    return this.steppedUp({ passkey });
  }

  /**
   * Where to send the browser (`location.assign(url)`) to step up with a fresh sign-in at a
   * linked identity provider; it comes back to `redirectTo` with this session renewed, or as
   * `readProviderReturn` tells (`IDENTITY_NOT_FOUND`: another identity signed in there). The page
   * is left: call again what needed the step-up once it is back.
   */
  reauthenticateWithProviderUrl(providerId: string, redirectTo: string): string {
    return providerStartUrl(this.baseUrl, providerId, redirectTo, 'reauthenticate');
  }

  private async steppedUp(body: Record<string, unknown>): Promise<SignedInResult> {
    const sentAt = Date.now();
    const result = await this.authedReplacing<SignedInResult>('POST', '/auth/reauthenticate', body);
    this.renewed(result.data.expires_in, sentAt);
    return result;
  }

  /** Whether this browser can use passkeys at all, and offer them in an input's autofill. */
  async passkeySupport(): Promise<{ passkeys: boolean; autofill: boolean }> {
    return {
      passkeys: browserSupportsWebAuthn(),
      autofill: await browserSupportsWebAuthnAutofill(),
    };
  }

  /**
   * Signs in with a passkey, no email typed: the browser offers the passkeys it has for this
   * service. `autofill: true` for conditional UI: call it as the sign-in page opens, with an
   * input marked `autocomplete="username webauthn"`; it resolves once a passkey is picked there.
   * Rejects with `PASSKEY_CANCELLED` when the prompt is dismissed, `401 INVALID_PASSKEY` when
   * the service refuses the passkey.
   */
  async signInWithPasskey(options: { autofill?: boolean } = {}): Promise<SignedInResult> {
    const begun = await this.call<DataEnvelope<{ options: PasskeyRequest }>>(
      'POST',
      '/auth/passkey/options',
    );
    const response = await usePasskey(begun.data.options, options.autofill === true);
    return this.signIn<SignedInResult>('/auth/passkey/verify', { response });
  }

  /**
   * A login's second step answered with a passkey (`methods` listed `passkey`): the challenge
   * `login()` answered. Signs in as `verifySecondFactor` does.
   */
  async verifySecondFactorWithPasskey(challenge: string): Promise<SignedInResult> {
    const begun = await this.call<DataEnvelope<{ options: PasskeyRequest }>>(
      'POST',
      '/auth/mfa/passkey/options',
      { challenge },
    );
    const passkey = await usePasskey(begun.data.options);
    return this.signIn<SignedInResult>('/auth/mfa/verify', { challenge, passkey });
  }

  /**
   * Registers a passkey of this device (or a phone, a security key) for the signed-in user,
   * named as given. Needs a recent sign-in (`403 REAUTHENTICATION_REQUIRED`: `reauthenticate`,
   * then call again). From then on a password login asks for a second step too.
   */
  async registerPasskey(
    input: { name?: string } = {},
  ): Promise<DataEnvelope<{ passkey: Passkey }>> {
    const begun = await this.authed<DataEnvelope<{ options: PasskeyCreation }>>(
      'POST',
      '/users/me/passkeys/options',
    );
    const response = await createPasskey(begun.data.options);
    return this.authed('POST', '/users/me/passkeys', { response, name: input.name });
  }

  /** The signed-in user's passkeys, oldest first. */
  listPasskeys(): Promise<DataEnvelope<{ passkeys: Passkey[] }>> {
    return this.authed('GET', '/users/me/passkeys');
  }

  renamePasskey(id: string, name: string): Promise<DataEnvelope<{ passkey: Passkey }>> {
    return this.authed('PATCH', `/users/me/passkeys/${encodeURIComponent(id)}`, { name });
  }

  /** `409 LAST_SIGN_IN_METHOD` when it is the last way into an account without a password. */
  deletePasskey(id: string): Promise<MessageEnvelope> {
    return this.authed('DELETE', `/users/me/passkeys/${encodeURIComponent(id)}`);
  }

  /**
   * The ways in this service offers (`password`, `passkey`, `email_code`, `identity_provider`):
   * a sign-in page shows these and no others.
   */
  listSignInMethods(): Promise<DataEnvelope<{ methods: SignInMethod[] }>> {
    return this.call('GET', '/auth/sign-in-methods');
  }

  /** The identity providers this service signs in with: a "Sign in with <name>" button each. */
  listIdentityProviders(): Promise<DataEnvelope<{ providers: IdentityProvider[] }>> {
    return this.call('GET', '/auth/providers');
  }

  /**
   * Where to send the browser to sign in with a provider (`location.assign(url)`); it comes back
   * to `redirectTo` (an APP_ORIGINS page) signed in, or as `readProviderReturn` tells.
   */
  providerSignInUrl(providerId: string, redirectTo: string): string {
    return providerStartUrl(this.baseUrl, providerId, redirectTo, 'sign-in');
  }

  /**
   * Enterprise SSO: where an address's domain signs in (`url`, to send the browser to), or
   * `404 SSO_NOT_CONFIGURED` (sign in another way).
   */
  startSingleSignOn(input: {
    email: string;
    redirectTo: string;
  }): Promise<DataEnvelope<{ provider: string; url: string }>> {
    return this.call('POST', '/auth/sso/start', {
      email: input.email,
      redirect_to: input.redirectTo,
    });
  }

  /**
   * What a provider's round trip left in the page's address; a completed sign-in is announced
   * to every tab once `status()` or the next call sees the session.
   */
  readProviderReturn(address: string | URL): ProviderReturn {
    return readProviderReturn(address);
  }

  /** The signed-in user's linked identities, oldest first. */
  listIdentities(): Promise<DataEnvelope<{ identities: LinkedIdentity[] }>> {
    return this.authed('GET', '/users/me/identities');
  }

  /**
   * Where to send the browser to link a provider to the signed-in account (a recent sign-in is
   * needed: the start answers `403 REAUTHENTICATION_REQUIRED` otherwise).
   */
  linkIdentityUrl(providerId: string, redirectTo: string): string {
    return providerStartUrl(this.baseUrl, providerId, redirectTo, 'link');
  }

  /** `409 LAST_SIGN_IN_METHOD` when it is the account's last way in. */
  unlinkIdentity(providerId: string): Promise<MessageEnvelope> {
    return this.authed('DELETE', `/users/me/identities/${encodeURIComponent(providerId)}`);
  }

  verifyEmail(
    input: VerifyEmailInput,
  ): Promise<DataEnvelope<{ user: VerifiedUser; redirect_url?: string }>> {
    return this.call('POST', '/auth/verify-email', input);
  }

  resendVerificationEmail(input: EmailLinkInput): Promise<MessageEnvelope> {
    return this.call('POST', '/auth/resend-verification-email', input);
  }

  forgotPassword(input: EmailLinkInput): Promise<MessageEnvelope> {
    return this.call('POST', '/auth/forgot-password', input);
  }

  /**
   * The contract's `POST /auth/reset-password` with `{ email }`: the reset mail, as
   * `forgotPassword` sends it (which also takes an `applicationUrl`).
   */
  requestPasswordReset(input: PasswordResetRequestInput): Promise<MessageEnvelope> {
    return this.call('POST', '/auth/reset-password', { email: input.email });
  }

  /**
   * Sets a new password from a reset token. The service ends every session of the token's user,
   * who need not be the one signed in here: ask `status()` afterwards to learn whether this
   * browser's session was among them.
   */
  resetPassword(input: ResetPasswordInput): Promise<MessageEnvelope> {
    return this.call('POST', '/auth/reset-password', {
      token: input.token,
      newPassword: input.newPassword,
    });
  }

  /**
   * `fetch` for your own API, with the session's cookies. An answer that `isAuthFailure` flags
   * is retried once after a refresh; if the refresh is refused, that first answer is returned
   * and the session has ended. Rejects with `AuthError`: `NETWORK_ERROR` when the request could
   * not be sent, `ABORTED` when your signal stopped it, and the refresh's own error (503, 429,
   * network) when a needed refresh failed for a passing reason. The body must be one `Request`
   * can replay (not a one-shot stream with `duplex: 'half'`).
   */
  async fetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
    const request = new Request(input, { ...init, credentials: 'include' });
    return this.withSession(
      () => transport(() => this.send(request.clone()), request.url),
      this.isAuthFailure,
    );
  }

  /**
   * Called each time someone signs in: `login()` in this tab or in another tab of the app.
   * Returns the function that stops listening.
   */
  onSessionStarted(listener: StartListener): () => void {
    this.startListeners.add(listener);
    return () => this.startListeners.delete(listener);
  }

  /**
   * Called once each time the session ends (logout here or in another tab, a password reset, or a
   * refused refresh of a session this tab had seen); returns the function that stops listening.
   */
  onSessionEnded(listener: EndListener): () => void {
    this.endListeners.add(listener);
    return () => this.endListeners.delete(listener);
  }

  /** Stops hearing other tabs, and renewing the session ahead of its expiry. */
  close(): void {
    this.renewal.cancel();
    this.tabs.close();
  }

  /**
   * Sends, and on an auth failure refreshes once and sends again. When the refresh was another
   * tab's and the retry is refused all the same, this tab refreshes once itself: the other tab's
   * may have failed for a passing reason. Once the session is known to have ended, a failure is
   * returned as it is: no refresh, so an app that reacts to the end by calling again cannot loop.
   */
  private async withSession(
    send: () => Promise<Response>,
    failed: (response: Response) => boolean | Promise<boolean>,
  ): Promise<Response> {
    let sentAt = Date.now();
    let response = await send();
    for (let round = 0; round < 2; round++) {
      if (this.state === 'signed-out' || !(await failed(response))) return response;
      const result: RefreshResult = await this.refresher.refresh(sentAt);
      if (result.outcome === 'refused') return response;
      if (result.outcome === 'failed') throw result.error;
      sentAt = Date.now();
      response = await send();
      if (result.byThisTab) return response;
    }
    return response;
  }

  private async postRefresh(): Promise<RefreshResult> {
    const sentAt = Date.now();
    let response: Response;
    try {
      response = await this.sendRefresh();
    } catch (error) {
      return { outcome: 'failed', error: asAuthError(error) };
    }
    // A password change on its way may be what revoked the refresh token this one carried: its
    // answer (the new session's cookies) tells whether the session ended.
    if (response.status === 401) await Promise.allSettled(this.replacements);
    // Refused, but someone signed in since it left: the old refresh token was replaced by a new
    // session's, which the retry will use. That session has not ended.
    if (response.status === 401 && this.lastSignIn > sentAt) {
      return { outcome: 'refreshed', byThisTab: false };
    }
    this.afterRefresh(response, sentAt);
    if (response.ok) {
      this.renewed(await expiresInOf(response), sentAt);
      return { outcome: 'refreshed', byThisTab: true };
    }
    if (response.status === 401) return { outcome: 'refused' };
    return {
      outcome: 'failed',
      error: await readEnvelope(response).then(asUnexpected, asAuthError),
    };
  }

  /** Bounded in time: a tab holds the lock while this runs, and every tab waits for it. */
  private sendRefresh(): Promise<Response> {
    const signal = AbortSignal.timeout(this.refreshTimeoutMs);
    return this.request('POST', '/auth/refresh', undefined, {}, signal);
  }

  private afterRefresh(response: Response, sentAt: number): void {
    if (response.ok) {
      this.tabs.noteRefresh(Date.now());
      this.signedIn();
    } else if (response.status === 401) {
      this.ended('refresh-failed', true, sentAt);
    }
  }

  /**
   * A signed-in call: refreshed and retried once on a 401 about the session, read as the
   * envelope. A 401 about a code the user typed (INVALID_MFA_CODE) is answered as it is: a
   * refresh cannot fix it, and the same wrong code sent again would count twice.
   */
  private async authed<R extends MessageEnvelope = MessageEnvelope>(
    method: string,
    path: string,
    body?: unknown,
    /** What each send (the first, and the retry) goes through; `authedReplacing`'s bookkeeping. */
    through: (sent: Promise<Response>) => Promise<Response> = (sent) => sent,
  ): Promise<R> {
    const response = await this.withSession(
      () => through(this.request(method, path, body)),
      refusesSession,
    );
    return readEnvelope<R>(response);
  }

  /**
   * A signed-in call whose success gives this browser new cookies and revokes the refresh token
   * it held (a password change, a step-up). A refresh refused while it is on its way waits for
   * its answer before calling the session ended; a call refused before the new cookies needs a
   * retry, not a refresh of its own.
   */
  private authedReplacing<R extends MessageEnvelope>(
    method: string,
    path: string,
    body: unknown,
  ): Promise<R> {
    return this.authed<R>(method, path, body, (sent) => {
      const noted = sent.then((answer) => {
        if (answer.ok) {
          this.tabs.noteRefresh(Date.now());
          this.signedIn();
        }
        return answer;
      });
      this.replacements.add(noted);
      const settled = () => this.replacements.delete(noted);
      noted.then(settled, settled);
      return noted;
    });
  }

  private async call<R extends MessageEnvelope = MessageEnvelope>(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<R> {
    return readEnvelope<R>(await this.request(method, path, body));
  }

  private request(
    method: string,
    path: string,
    body?: unknown,
    extraHeaders: Record<string, string> = {},
    signal?: AbortSignal,
  ): Promise<Response> {
    const headers: Record<string, string> = { accept: 'application/json', ...extraHeaders };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const url = `${this.baseUrl}${path}`;
    return transport(
      () =>
        this.send(url, {
          method,
          headers,
          credentials: 'include',
          body: body === undefined ? undefined : JSON.stringify(body),
          signal,
        }),
      url,
    );
  }

  private signedIn(): void {
    this.state = 'signed-in';
    this.lastSignIn = Date.now();
  }

  /**
   * Sends a sign-in (a login, its second step, a passkey, an emailed code) and, unless it
   * answered a second step to take first, starts the session it answered.
   */
  private async signIn<R extends LoginResult>(path: string, body: unknown): Promise<R> {
    const sentAt = Date.now();
    const result = await this.call<R>('POST', path, body);
    if (!isSecondFactorRequired(result)) this.sessionStarted(result, sentAt);
    return result;
  }

  /** A login (one step or two) started a session here: this tab, the others, the listeners. */
  private sessionStarted(result: SignedInResult, sentAt: number): void {
    const { user, expires_in: expiresIn } = result.data;
    this.signedIn();
    this.scheduleRenewal(expiresIn, sentAt);
    this.tabs.announce({ type: 'signed-in', user, expiresIn, sentAt });
    this.started({ source: 'this-tab', user });
  }

  /** This tab renewed the session (new cookies): the next renewal here, and the other tabs'. */
  private renewed(expiresIn: unknown, sentAt: number): void {
    this.scheduleRenewal(expiresIn, sentAt);
    if (typeof expiresIn === 'number') this.tabs.announce({ type: 'renewed', expiresIn, sentAt });
  }

  /** Renews ahead of a token that had `expiresIn` seconds left at `sentAt`, unless told not to. */
  private scheduleRenewal(expiresIn: unknown, sentAt: number): void {
    if (this.renewAhead && this.state !== 'signed-out') this.renewal.schedule(expiresIn, sentAt);
  }

  /**
   * The timer's renewal, through the refresher: one at a time in this tab and across tabs. A
   * refused refresh ends the session as any does; one that failed for a passing reason leaves it
   * (a call refused later still refreshes and retries). When another tab renewed first and its
   * message (which reschedules this timer) has not come, `GET /auth/session` tells how long the
   * new token lives: a request that is never refused.
   */
  private async renewBeforeExpiry(scheduledAt: number): Promise<void> {
    if (this.state === 'signed-out') return;
    const result = await this.refresher.refresh(scheduledAt);
    if (result.outcome !== 'refreshed' || result.byThisTab || this.renewal.armed) return;
    const sentAt = Date.now();
    try {
      const { data } = await this.call<DataEnvelope<SessionData>>('GET', '/auth/session');
      if (data.user && !this.renewal.armed) this.scheduleRenewal(data.expires_in, sentAt);
    } catch {
      // Unreachable for now: the next call that needs a refresh will make one.
    }
  }

  private started(start: SessionStart): void {
    notify(this.startListeners, start);
  }

  /**
   * Listeners hear of the end of a session this tab knew of, or of one the user ended: a
   * visitor who never signed in has no session to lose.
   */
  private ended(reason: SessionEndReason, announce: boolean, since = Date.now()): void {
    this.renewal.cancel();
    const previous = this.state;
    if (previous === 'signed-out') return;
    this.state = 'signed-out';
    if (announce) this.tabs.announce({ type: 'ended', reason, since });
    if (previous === 'unknown' && reason === 'refresh-failed') return;
    notify(this.endListeners, reason);
  }

  /** Another tab signing in makes a session possible again here; listeners hear of it. */
  private heard(message: TabMessage): void {
    if (message.type === 'ended') {
      // Ended by a request that left before this tab saw a sign-in: that is another session.
      if (this.lastSignIn > message.since) return;
      return this.ended(message.reason, false, message.since);
    }
    if (message.type === 'renewed') {
      // The cookies this tab sends are the new ones: renew ahead of them, not now.
      return this.scheduleRenewal(message.expiresIn, message.sentAt);
    }
    this.lastSignIn = Date.now();
    if (this.state === 'signed-out') this.state = 'unknown';
    if (message.expiresIn !== undefined && message.sentAt !== undefined) {
      this.scheduleRenewal(message.expiresIn, message.sentAt);
    }
    this.started({ source: 'other-tab', user: message.user });
  }
}

/** `data.expires_in` of a refresh's answer, read from a copy; undefined when it has none. */
async function expiresInOf(response: Response): Promise<unknown> {
  try {
    const body = (await response.clone().json()) as { data?: { expires_in?: unknown } } | null;
    return body?.data?.expires_in;
  } catch {
    return undefined;
  }
}

/**
 * `{ password }`, `{ code }` or `{ email_code }` (codes without their spaces), as given: two or
 * none, the service refuses.
 */
function identityProof(proof: IdentityProof): Record<string, string | undefined> {
  return {
    password: proof.password,
    code: proof.code === undefined ? undefined : digits(proof.code),
    email_code: proof.emailCode === undefined ? undefined : digits(proof.emailCode),
  };
}
