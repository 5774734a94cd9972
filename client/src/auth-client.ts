import { AuthError } from './auth-error.js';
import { SessionRefresher, type RefreshOutcome } from './session-refresher.js';
import { browserCoordination, type TabCoordination, type TabMessage } from './tab-coordination.js';
import type {
  EmailLinkInput,
  FailureEnvelope,
  LoginInput,
  RegisterInput,
  ResetPasswordInput,
  SessionEndReason,
  DataEnvelope,
  MessageEnvelope,
  User,
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
}

type SessionState = 'unknown' | 'signed-in' | 'signed-out';
type Listener = (reason: SessionEndReason) => void;

/**
 * The service's endpoints, one typed method each, over cookies only: the tokens live in HttpOnly
 * cookies the browser sends (`credentials: 'include'`), never in JavaScript. Authenticated calls
 * that come back 401 are retried once after one shared refresh; when the refresh is refused, the
 * session has ended and `onSessionEnded` listeners hear it, in every tab of the app.
 */
export class AuthClient {
  private readonly baseUrl: string;
  private readonly send: typeof fetch;
  private readonly isAuthFailure: (response: Response) => boolean;
  private readonly refreshTimeoutMs: number;
  private readonly tabs: TabCoordination;
  private readonly refresher: SessionRefresher;
  private readonly listeners = new Set<Listener>();
  private state: SessionState = 'unknown';

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
    this.tabs.listen((message) => this.heard(message));
  }

  register(input: RegisterInput): Promise<DataEnvelope<{ user: User }>> {
    return this.call<DataEnvelope<{ user: User }>>('POST', '/auth/register', input);
  }

  async login(input: LoginInput): Promise<DataEnvelope<{ user: User }>> {
    const result = await this.call<DataEnvelope<{ user: User }>>('POST', '/auth/login', input);
    this.signedIn(true);
    return result;
  }

  /**
   * Ends the session on every device. The session counts as ended here even when the service
   * says there was none left (401): either way nobody is signed in.
   */
  async logout(): Promise<MessageEnvelope> {
    try {
      const result = await this.call('POST', '/auth/logout');
      this.ended('logout', true);
      return result;
    } catch (error) {
      // 401: no session was left to end. Anything else (offline, 5xx): the session may well
      // still be alive, and nobody should believe they are signed out.
      if (error instanceof AuthError && error.status === 401) this.ended('logout', true);
      throw error;
    }
  }

  /**
   * Renews the cookies now. Usually unnecessary: authenticated calls refresh when they must. A
   * refused refresh ends the session, as an automatic one does.
   */
  async refresh(): Promise<DataEnvelope<{ user: User }>> {
    let response: Response;
    try {
      response = await this.tabs.exclusive(() => this.sendRefresh());
    } catch (error) {
      if (error instanceof AuthError) throw error;
      throw new AuthError('NETWORK_ERROR', 'Another tab’s refresh did not finish in time', 0);
    }
    this.afterRefresh(response);
    return read<DataEnvelope<{ user: User }>>(response);
  }

  /** The signed-in user, refreshing the access token first if it has expired. */
  async verifyToken(): Promise<DataEnvelope<{ user: User }>> {
    const response = await this.withSession(
      () => this.request('GET', '/auth/verify-token'),
      (r) => r.status === 401,
    );
    const result = await read<DataEnvelope<{ user: User }>>(response);
    this.signedIn(false);
    return result;
  }

  verifyEmail(
    input: VerifyEmailInput,
  ): Promise<DataEnvelope<{ user: VerifiedUser; redirect_url?: string }>> {
    return this.call<DataEnvelope<{ user: VerifiedUser; redirect_url?: string }>>(
      'POST',
      '/auth/verify-email',
      input,
    );
  }

  resendVerificationEmail(input: EmailLinkInput): Promise<MessageEnvelope> {
    return this.call('POST', '/auth/resend-verification-email', input);
  }

  forgotPassword(input: EmailLinkInput): Promise<MessageEnvelope> {
    return this.call('POST', '/auth/forgot-password', input);
  }

  /** Sets a new password from a reset token. The service ends every session of the user. */
  async resetPassword(input: ResetPasswordInput): Promise<MessageEnvelope> {
    const result = await this.call('POST', '/auth/reset-password', input);
    this.ended('password-reset', true);
    return result;
  }

  /**
   * `fetch` for your own API, with the session's cookies. An answer that `isAuthFailure` flags
   * is retried once after a refresh; if the refresh is refused, that first answer is returned
   * and the session has ended. The body must be one `Request` can replay (not a one-shot stream
   * with `duplex: 'half'`).
   */
  fetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
    const request = new Request(input, { ...init, credentials: 'include' });
    return this.withSession(() => this.send(request.clone()), this.isAuthFailure);
  }

  /**
   * Called once each time the session ends (logout here or in another tab, a password reset, or a
   * refused refresh of a session this tab had seen); returns the function that stops listening.
   */
  onSessionEnded(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Stops hearing other tabs. */
  close(): void {
    this.tabs.close();
  }

  /**
   * Sends, and on an auth failure refreshes once and sends again. Once the session is known to
   * have ended, a failure is returned as it is: no refresh, so an app that reacts to the end by
   * calling again cannot loop.
   */
  private async withSession(
    send: () => Promise<Response>,
    failed: (response: Response) => boolean,
  ): Promise<Response> {
    const sentAt = Date.now();
    const first = await send();
    if (!failed(first) || this.state === 'signed-out') return first;
    const outcome = await this.refresher.refresh(sentAt);
    if (outcome !== 'refreshed') return first;
    return send();
  }

  private async postRefresh(): Promise<RefreshOutcome> {
    let response: Response;
    try {
      response = await this.sendRefresh();
    } catch {
      return 'failed';
    }
    this.afterRefresh(response);
    if (response.ok) return 'refreshed';
    return response.status === 401 ? 'refused' : 'failed';
  }

  /** Bounded in time: a tab holds the lock while this runs, and every tab waits for it. */
  private sendRefresh(): Promise<Response> {
    const signal = AbortSignal.timeout(this.refreshTimeoutMs);
    return this.request('POST', '/auth/refresh', undefined, signal);
  }

  private afterRefresh(response: Response): void {
    if (response.ok) {
      this.tabs.noteRefresh(Date.now());
      this.signedIn(false);
    } else if (response.status === 401) {
      this.ended('refresh-failed', true);
    }
  }

  private async call<R extends MessageEnvelope = MessageEnvelope>(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<R> {
    return read<R>(await this.request(method, path, body));
  }

  private async request(
    method: string,
    path: string,
    body?: unknown,
    signal?: AbortSignal,
  ): Promise<Response> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    try {
      return await this.send(`${this.baseUrl}${path}`, {
        method,
        headers,
        credentials: 'include',
        body: body === undefined ? undefined : JSON.stringify(body),
        signal,
      });
    } catch (error) {
      throw new AuthError('NETWORK_ERROR', `The service could not be reached: ${String(error)}`, 0);
    }
  }

  private signedIn(announce: boolean): void {
    this.state = 'signed-in';
    if (announce) this.tabs.announce({ type: 'signed-in' });
  }

  /**
   * Listeners hear of the end of a session this tab knew of, or of one the user ended: a
   * visitor who never signed in has no session to lose.
   */
  private ended(reason: SessionEndReason, announce: boolean): void {
    const previous = this.state;
    if (previous === 'signed-out') return;
    this.state = 'signed-out';
    if (announce) this.tabs.announce({ type: 'ended', reason });
    if (previous === 'unknown' && reason === 'refresh-failed') return;
    for (const listener of [...this.listeners]) {
      try {
        listener(reason);
      } catch (error) {
        // The app's bug must not break the SDK or the other listeners; it still surfaces.
        setTimeout(() => {
          throw error;
        });
      }
    }
  }

  /** Another tab signing in makes a session possible again here; it says nothing of this tab's. */
  private heard(message: TabMessage): void {
    if (message.type === 'ended') this.ended(message.reason, false);
    else if (this.state === 'signed-out') this.state = 'unknown';
  }
}

/** The envelope of a response, or the AuthError it stands for. */
async function read<R extends MessageEnvelope>(response: Response): Promise<R> {
  let body: unknown;
  try {
    body = await response.json();
  } catch {
    body = undefined;
  }
  if (isEnvelope(body)) {
    if (body.success) return body as R;
    throw AuthError.fromEnvelope(body as FailureEnvelope, response);
  }
  throw new AuthError(
    'UNEXPECTED_RESPONSE',
    `The service answered ${response.status} without its JSON envelope`,
    response.status,
  );
}

function isEnvelope(body: unknown): body is { success: boolean; message: string } {
  return (
    typeof body === 'object' &&
    body !== null &&
    typeof (body as { success?: unknown }).success === 'boolean' &&
    typeof (body as { message?: unknown }).message === 'string'
  );
}
