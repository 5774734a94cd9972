// Test doubles for the SDK's specs: the service and the browser as the SDK sees them.
import { account } from './account.js';
import { admin } from './admin.js';
import { createAuthClient, type AuthClientOptions } from './auth-client.js';
import { emailCode } from './email-code.js';
import { identityProviders } from './identity-providers.js';
import { organizations } from './organizations.js';
import { passkeys } from './passkeys.js';
import { password } from './password.js';
import { secondFactor } from './second-factor.js';
import type { Timers } from './renewal-timer.js';
import type { TabCoordination, TabMessage } from './tab-coordination.js';
import type { SessionEndReason, SessionStart } from './types.js';

export const BASE = 'https://auth.test/api/v1';
/** Every part of the SDK, as an app that uses them all passes them. */
export const EVERY_PART = [
  password(),
  emailCode(),
  secondFactor(),
  passkeys(),
  identityProviders(),
  account(),
  admin(),
  organizations(),
] as const;
export const USER = { id: 'user_1', email: 'a@example.com', username: 'a', role: 'user' };

/**
 * The service as the SDK sees it: an access token that is good or has expired, a refresh that
 * renews it, is refused, or fails. Cookies are what "good" stands for here.
 */
export class FakeService {
  accessGood = false;
  refreshAnswer: 'renew' | 'refuse' | 'unavailable' = 'renew';
  logoutAnswer: 'ok' | 'no-session' | 'unavailable' = 'ok';
  /** Keeps the access token bad even after a refresh (an API that refuses the user). */
  alwaysRefuse = false;
  /** Whether the browser holds a refresh cookie (what `GET /auth/session` reports). */
  refreshCookie = true;
  sessionAnswer: 'ok' | 'unavailable' = 'ok';
  /** When set, answers that set an access token (and the session's) say it lives this long. */
  expiresIn: number | undefined;
  refreshes = 0;
  /** Counts logins: each starts a session of its own. */
  session = 0;
  calls: string[] = [];
  bodies: string[] = [];
  private pendingRefresh: Array<() => void> = [];
  holdRefreshes = false;

  fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    const path = new URL(request.url).pathname.replace('/api/v1', '');
    this.calls.push(`${request.method} ${path}`);
    expect(request.credentials).toBe('include');
    if (request.method === 'POST' && path !== '/auth/refresh') {
      this.bodies.push(await request.text());
    }
    switch (path) {
      case '/auth/login':
        this.session++;
        this.accessGood = true;
        return envelope(200, {
          success: true,
          message: 'Login successful',
          data: { user: USER, ...this.lifetime() },
        });
      case '/auth/logout':
        if (this.logoutAnswer === 'unavailable') {
          return envelope(503, { success: false, message: 'later', error: 'SERVICE_UNAVAILABLE' });
        }
        this.accessGood = false;
        return this.logoutAnswer === 'ok'
          ? envelope(200, { success: true, message: 'Logged out from all devices' })
          : envelope(401, { success: false, message: 'no session', error: 'INVALID_TOKEN' });
      case '/auth/refresh':
        return this.refresh();
      case '/auth/session':
        if (this.sessionAnswer === 'unavailable') {
          return envelope(
            503,
            { success: false, message: 'later', error: 'SERVICE_UNAVAILABLE' },
            7,
          );
        }
        return envelope(200, {
          success: true,
          message: 'Session',
          data: {
            user: this.accessGood ? USER : null,
            refreshable: this.refreshCookie,
            ...(this.accessGood ? this.lifetime() : {}),
          },
        });
      case '/auth/verify-token':
      case '/users/me':
      case '/app/orders':
        return this.accessGood && !this.alwaysRefuse
          ? envelope(200, { success: true, message: 'Token is valid', data: { user: USER } })
          : envelope(401, { success: false, message: 'expired', error: 'INVALID_TOKEN' });
      default:
        return new Response('<html>bad gateway</html>', { status: 502 });
    }
  };

  releaseRefreshes(): void {
    this.holdRefreshes = false;
    for (const release of this.pendingRefresh.splice(0)) release();
  }

  private async refresh(): Promise<Response> {
    this.refreshes++;
    const session = this.session;
    if (this.holdRefreshes) await new Promise<void>((resolve) => this.pendingRefresh.push(resolve));
    if (this.refreshAnswer === 'unavailable') {
      return envelope(503, { success: false, message: 'later', error: 'SERVICE_UNAVAILABLE' });
    }
    if (this.refreshAnswer === 'refuse') {
      // A refusal is about the refresh token sent: a login since then started another session.
      if (this.session === session) this.accessGood = false;
      return envelope(401, { success: false, message: 'expired', error: 'INVALID_TOKEN' });
    }
    this.accessGood = true;
    return envelope(200, {
      success: true,
      message: 'Token refreshed',
      data: { user: USER, ...this.lifetime() },
    });
  }

  private lifetime(): { expires_in?: number } {
    return this.expiresIn === undefined ? {} : { expires_in: this.expiresIn };
  }
}

export function envelope(status: number, body: object, retryAfter?: number): Response {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (retryAfter !== undefined) headers['retry-after'] = String(retryAfter);
  return new Response(JSON.stringify(body), { status, headers });
}

/** What several tabs share in a browser: one lock, one localStorage, one broadcast channel. */
export class FakeBrowser {
  private lock: Promise<unknown> = Promise.resolve();
  /** Holders and waiters of the lock. */
  private held = 0;
  private last = 0;
  private readonly tabs: Array<(message: TabMessage) => void> = [];

  tab(): TabCoordination {
    let handler: ((message: TabMessage) => void) | undefined;
    const receive = (message: TabMessage) => handler?.(message);
    this.tabs.push(receive);
    return {
      exclusive: <T>(task: (waited: boolean) => Promise<T>) => {
        const waited = this.held > 0;
        this.held++;
        const run = this.lock.then(() => task(waited));
        this.lock = run
          .catch(() => undefined)
          .then(() => {
            this.held--;
          });
        return run;
      },
      lastRefresh: () => this.last,
      noteRefresh: (at) => {
        this.last = at;
      },
      announce: (message) => {
        for (const other of this.tabs) if (other !== receive) other(message);
      },
      listen: (h) => {
        handler = h;
      },
      close: () => undefined,
    };
  }
}

export function client(
  service: FakeService,
  browser = new FakeBrowser(),
  options: Partial<AuthClientOptions> = {},
) {
  const ended: SessionEndReason[] = [];
  const auth = createAuthClient({
    baseUrl: `${BASE}/`,
    fetch: service.fetch,
    coordination: browser.tab(),
    ...options,
    plugins: EVERY_PART,
  });
  const started: SessionStart[] = [];
  auth.onSessionEnded((reason) => ended.push(reason));
  auth.onSessionStarted((start) => started.push(start));
  return { auth, ended, started };
}

/** A client with every part on `fetch`, in a tab of its own unless given one. */
export function clientOn(fetch: typeof globalThis.fetch, coordination = new FakeBrowser().tab()) {
  return createAuthClient({ baseUrl: BASE, fetch, coordination, plugins: EVERY_PART });
}

/** A service that answers every call with `answer(method, path)` and records what it got. */
export function recording(answer: (method: string, path: string) => Response) {
  const seen: Array<{ method: string; path: string; body: unknown }> = [];
  /** Each request's headers, in the order of `seen`. */
  const headers: Headers[] = [];
  const fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    const text = await request.text();
    const path = url.pathname.replace('/api/v1', '') + url.search;
    seen.push({ method: request.method, path, body: text ? (JSON.parse(text) as unknown) : null });
    headers.push(request.headers);
    return answer(request.method, path);
  };
  return { fetch, seen, headers };
}

/** `count` tabs of one browser, each with its client and what its listeners heard. */
export function tabs(fetch: typeof globalThis.fetch, count = 2) {
  const browser = new FakeBrowser();
  return Array.from({ length: count }, () => {
    const auth = createAuthClient({
      baseUrl: BASE,
      fetch,
      coordination: browser.tab(),
      plugins: EVERY_PART,
    });
    const ended: SessionEndReason[] = [];
    const started: SessionStart[] = [];
    auth.onSessionEnded((reason) => ended.push(reason));
    auth.onSessionStarted((start) => started.push(start));
    return { auth, ended, started, browser };
  });
}

/** Timers a test fires by hand, as if their time had come; each pending one with its delay. */
export class FakeTimers implements Timers {
  pending: Array<{ id: number; ms: number; handler: () => void }> = [];
  private next = 0;

  setTimeout = (handler: () => void, ms: number): unknown => {
    this.next++;
    this.pending.push({ id: this.next, ms, handler });
    return this.next;
  };

  clearTimeout = (handle: unknown): void => {
    this.pending = this.pending.filter((timer) => timer.id !== handle);
  };

  /** The delays of the pending timers. */
  get delays(): number[] {
    return this.pending.map((timer) => timer.ms);
  }

  /** Fires every pending timer, then lets what they started finish. */
  async fire(): Promise<void> {
    for (const timer of this.pending.splice(0)) timer.handler();
    await settle();
  }
}

/** Lets pending requests and their follow-ups (fake, so a few turns each) finish. */
export async function settle(): Promise<void> {
  for (let turn = 0; turn < 10; turn++) await new Promise((resolve) => setTimeout(resolve, 0));
}
