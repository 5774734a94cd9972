import { AuthError } from './auth-error.js';
import { readBare, readEnvelope, refusesSession } from './envelope.js';
import type { AuthClientPlugin, PluginApis, SessionEngine } from './plugin.js';
import { identityProof } from './proofs.js';
import { asAuthError, asUnexpected, notify, transport } from './transport.js';
import { RenewalTimer, globalTimers, type Timers } from './renewal-timer.js';
import { SessionRefresher, type RefreshResult } from './session-refresher.js';
import { isSecondFactorRequired, isTokenResponse } from './sign-in-result.js';
import { browserCoordination, type TabCoordination, type TabMessage } from './tab-coordination.js';
import type {
  DataEnvelope,
  IdentityProof,
  LoginResult,
  LogoutScope,
  MessageEnvelope,
  SessionEndReason,
  SessionStart,
  SessionStatus,
  SignedInResult,
  SignInMethod,
  TokenResponse,
  User,
  UserResult,
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
  /**
   * The parts of the SDK the app uses, each reached by its name: `plugins: [password(),
   * passkeys()]` gives `auth.password` and `auth.passkeys`. A part left out is not in the bundle.
   */
  plugins?: readonly AuthClientPlugin[];
}

type SessionState = 'unknown' | 'signed-in' | 'signed-out';
type EndListener = (reason: SessionEndReason) => void;
type StartListener = (start: SessionStart) => void;
type SessionData = { user: User | null; refreshable: boolean; expires_in?: number | null };

/**
 * `createAuthClient({ baseUrl: 'https://auth.example.com/api/v1', plugins: [password()] })`: the
 * session engine, and the parts of the SDK given in `plugins`, each under its name
 * (`auth.password.signIn(…)`).
 */
export function createAuthClient<const P extends readonly AuthClientPlugin[] = []>(
  options: AuthClientOptions & { plugins?: P },
): AuthClient & PluginApis<P> {
  return new AuthClient(options) as AuthClient & PluginApis<P>;
}

/**
 * The session engine, over cookies only: the tokens live in HttpOnly cookies the browser sends
 * (`credentials: 'include'`), never in JavaScript. Authenticated calls that come back 401 are
 * retried once after one shared refresh; when the refresh is refused, the session has ended and
 * `onSessionEnded` listeners hear it, in every tab of the app. Every failure, `fetch`'s included,
 * rejects with `AuthError`. The ways in and the account's areas are its plugins.
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
    const engine = this.engine();
    for (const plugin of options.plugins ?? []) {
      if (plugin.id in this) {
        this.close();
        throw new Error(`The client has a part called ${plugin.id} already`);
      }
      Object.defineProperty(this, plugin.id, { value: plugin.create(engine), enumerable: true });
    }
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

  /**
   * For non-browser clients: a refresh token (from `password.signInForTokens`) exchanged for new tokens.
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

  /**
   * Step-up: authenticates this session again, after a call answered `403
   * REAUTHENTICATION_REQUIRED` (its sign-in is older than the service's STEP_UP_MAX_AGE), or
   * `403 SECOND_FACTOR_REQUIRED` (a role that must show a second factor: a code of the app or a
   * passkey); then call that again. With the password, a code of the app, or the code
   * `requestReauthenticationCode` mailed (`{ emailCode }`); `account.getProfile()` says which the
   * account has (`reauthentication_methods`), and the passkeys and identity providers parts step
   * up with theirs. The session stays the same; its cookies are renewed.
   */
  async reauthenticate(proof: IdentityProof): Promise<SignedInResult> {
    return this.stepUp(identityProof(proof));
  }

  /**
   * Mails a six-digit code to the account's address, for `reauthenticate({ emailCode })`: the
   * proof every account has, one without a password included. `data.expires_in`: its lifetime
   * in seconds. `429 RATE_LIMITED` when the address has had its code mails for now.
   */
  requestReauthenticationCode(): Promise<DataEnvelope<{ expires_in: number }>> {
    return this.authed('POST', '/auth/reauthenticate/email-code');
  }

  private stepUp(body: Record<string, unknown>): Promise<SignedInResult> {
    return this.renewSession('POST', '/auth/reauthenticate', body);
  }

  /** New cookies for the same session (a step-up, a choice of organization), rotated as a refresh. */
  private async renewSession(method: string, path: string, body: unknown): Promise<SignedInResult> {
    const sentAt = Date.now();
    const result = await this.authedReplacing<SignedInResult>(method, path, body);
    this.renewed(result.data.expires_in, sentAt);
    return result;
  }

  /**
   * The ways in this service offers (`password`, `passkey`, `email_code`, `identity_provider`):
   * a sign-in page shows these and no others.
   */
  listSignInMethods(): Promise<DataEnvelope<{ methods: SignInMethod[] }>> {
    return this.call('GET', '/auth/sign-in-methods');
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
   * Called each time someone signs in, with any way in: in this tab or in another tab of the app.
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

  /** What the plugins send through: the engine's own requests, bound to this client. */
  private engine(): SessionEngine {
    return {
      baseUrl: this.baseUrl,
      call: (method, path, body) => this.call(method, path, body),
      authed: (method, path, body) => this.authed(method, path, body),
      signIn: (path, body) => this.signIn(path, body),
      stepUp: (body) => this.stepUp(body),
      renewSession: (method, path, body) => this.renewSession(method, path, body),
      replaceSession: (method, path, body) => this.replaceSession(method, path, body),
      requestTokens: (path, body, looksRight) => this.requestTokens(path, body, looksRight),
      ended: (reason) => this.ended(reason, true),
    };
  }

  /** A password change: every other session ends, this browser goes on with a new one. */
  private async replaceSession(
    method: string,
    path: string,
    body: unknown,
  ): Promise<SignedInResult> {
    const sentAt = Date.now();
    const result = await this.authedReplacing<SignedInResult>(method, path, body);
    const expiresIn = result.data.expires_in;
    this.scheduleRenewal(expiresIn, sentAt);
    this.tabs.announce({ type: 'signed-in', user: result.data.user, expiresIn, sentAt });
    return result;
  }

  /** The tokens in the answer instead of cookies; this client's cookie session is left alone. */
  private async requestTokens<R>(
    path: string,
    body: unknown,
    looksRight: (body: unknown) => boolean,
  ): Promise<R> {
    const response = await this.request('POST', path, body, { 'x-token-delivery': 'body' });
    return readBare<R>(response, looksRight);
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
