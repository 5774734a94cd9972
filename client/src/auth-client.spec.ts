import { AuthClient } from './auth-client.js';
import { AuthError } from './auth-error.js';
import type { TabCoordination, TabMessage } from './tab-coordination.js';
import type { SessionEndReason } from './types.js';

const BASE = 'https://auth.test/api/v1';
const USER = { id: 'user_1', email: 'a@example.com', username: 'a', role: 'user' };

/**
 * The service as the SDK sees it: an access token that is good or has expired, a refresh that
 * renews it, is refused, or fails. Cookies are what "good" stands for here.
 */
class FakeService {
  accessGood = false;
  refreshAnswer: 'renew' | 'refuse' | 'unavailable' = 'renew';
  logoutAnswer: 'ok' | 'no-session' | 'unavailable' = 'ok';
  /** Keeps the access token bad even after a refresh (an API that refuses the user). */
  alwaysRefuse = false;
  refreshes = 0;
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
        this.accessGood = true;
        return envelope(200, { success: true, message: 'Login successful', data: { user: USER } });
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
      case '/auth/verify-token':
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
    if (this.holdRefreshes) await new Promise<void>((resolve) => this.pendingRefresh.push(resolve));
    if (this.refreshAnswer === 'unavailable') {
      return envelope(503, { success: false, message: 'later', error: 'SERVICE_UNAVAILABLE' });
    }
    if (this.refreshAnswer === 'refuse') {
      this.accessGood = false;
      return envelope(401, { success: false, message: 'expired', error: 'INVALID_TOKEN' });
    }
    this.accessGood = true;
    return envelope(200, { success: true, message: 'Token refreshed', data: { user: USER } });
  }
}

function envelope(status: number, body: object): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json' },
  });
}

/** What several tabs share in a browser: one lock, one localStorage, one broadcast channel. */
class FakeBrowser {
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

function client(service: FakeService, browser = new FakeBrowser()) {
  const ended: SessionEndReason[] = [];
  const auth = new AuthClient({
    baseUrl: `${BASE}/`,
    fetch: service.fetch,
    coordination: browser.tab(),
  });
  auth.onSessionEnded((reason) => ended.push(reason));
  return { auth, ended };
}

describe('AuthClient: automatic refresh', () => {
  it('refreshes once and retries a call refused for an expired access token', async () => {
    const service = new FakeService();
    const { auth } = client(service);

    const result = await auth.verifyToken();

    expect(result.data.user).toEqual(USER);
    expect(service.refreshes).toBe(1);
    expect(service.calls).toEqual([
      'GET /auth/verify-token',
      'POST /auth/refresh',
      'GET /auth/verify-token',
    ]);
  });

  it('makes concurrent calls share one refresh (single flight)', async () => {
    const service = new FakeService();
    service.holdRefreshes = true;
    const { auth } = client(service);

    const calls = Array.from({ length: 5 }, () => auth.verifyToken());
    await new Promise((resolve) => setTimeout(resolve, 10));
    service.releaseRefreshes();
    const results = await Promise.all(calls);

    expect(results.every((r) => r.data.user.id === USER.id)).toBe(true);
    expect(service.refreshes).toBe(1);
  });

  it('retries only once: a call refused again after a good refresh fails, with no second refresh', async () => {
    const service = new FakeService();
    service.alwaysRefuse = true;
    const { auth, ended } = client(service);

    await expect(auth.verifyToken()).rejects.toMatchObject({ code: 'INVALID_TOKEN', status: 401 });
    expect(service.refreshes).toBe(1);
    expect(service.calls.filter((c) => c === 'GET /auth/verify-token')).toHaveLength(2);
    expect(ended).toEqual([]);
  });

  it('ends the session once when the refresh is refused, and never loops', async () => {
    const service = new FakeService();
    const { auth, ended } = client(service);
    await auth.login({ email: USER.email, password: 'secret-1' });
    service.accessGood = false;
    service.refreshAnswer = 'refuse';
    // An app that reacts to the end by asking again.
    const again: Array<Promise<unknown>> = [];
    auth.onSessionEnded(() => again.push(auth.verifyToken().catch((e: unknown) => e)));

    await expect(auth.verifyToken()).rejects.toMatchObject({ code: 'INVALID_TOKEN' });
    const second = await Promise.all(again);

    expect(ended).toEqual(['refresh-failed']);
    expect(second[0]).toBeInstanceOf(AuthError);
    expect(service.refreshes).toBe(1);
  });

  it('keeps the session when a refresh fails for a passing reason, and tries again later', async () => {
    const service = new FakeService();
    service.refreshAnswer = 'unavailable';
    const { auth, ended } = client(service);

    await expect(auth.verifyToken()).rejects.toMatchObject({ code: 'INVALID_TOKEN' });
    expect(ended).toEqual([]);
    service.refreshAnswer = 'renew';
    await expect(auth.verifyToken()).resolves.toMatchObject({ success: true });
    expect(service.refreshes).toBe(2);
  });

  it('does not tell a visitor who never signed in that a session ended', async () => {
    const service = new FakeService();
    service.refreshAnswer = 'refuse';
    const { auth, ended } = client(service);

    await expect(auth.verifyToken()).rejects.toMatchObject({ code: 'INVALID_TOKEN' });
    await expect(auth.verifyToken()).rejects.toMatchObject({ code: 'INVALID_TOKEN' });

    expect(ended).toEqual([]);
    expect(service.refreshes).toBe(1);
  });

  it('signs in again after an ended session: a login makes refreshes possible again', async () => {
    const service = new FakeService();
    const { auth, ended } = client(service);
    await auth.login({ email: USER.email, password: 'secret-1' });
    service.accessGood = false;
    service.refreshAnswer = 'refuse';
    await expect(auth.verifyToken()).rejects.toBeInstanceOf(AuthError);

    await auth.login({ email: USER.email, password: 'secret-1' });
    service.accessGood = false;
    service.refreshAnswer = 'renew';
    await expect(auth.verifyToken()).resolves.toMatchObject({ success: true });
    expect(ended).toEqual(['refresh-failed']);
    expect(service.refreshes).toBe(2);
  });
});

describe('AuthClient: the end of a session', () => {
  it('ends the session on logout, and on a logout that finds no session left', async () => {
    const service = new FakeService();
    const { auth, ended } = client(service);
    await auth.login({ email: USER.email, password: 'secret-1' });
    service.logoutAnswer = 'no-session';

    await expect(auth.logout()).rejects.toMatchObject({ code: 'INVALID_TOKEN' });

    expect(ended).toEqual(['logout']);
  });

  it('does not claim a logout that failed: the session may still be alive', async () => {
    const service = new FakeService();
    const { auth, ended } = client(service);
    await auth.login({ email: USER.email, password: 'secret-1' });
    service.logoutAnswer = 'unavailable';

    await expect(auth.logout()).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });

    expect(ended).toEqual([]);
    service.accessGood = false;
    await expect(auth.verifyToken()).resolves.toMatchObject({ success: true });
    expect(service.refreshes).toBe(1);
  });

  it('ends the session when an explicit refresh is refused', async () => {
    const service = new FakeService();
    const { auth, ended } = client(service);
    await auth.login({ email: USER.email, password: 'secret-1' });
    service.refreshAnswer = 'refuse';

    await expect(auth.refresh()).rejects.toMatchObject({ code: 'INVALID_TOKEN', status: 401 });

    expect(ended).toEqual(['refresh-failed']);
  });

  it('tells every listener even when one of them throws, and the call still settles', async () => {
    jest.useFakeTimers({ doNotFake: ['queueMicrotask', 'nextTick', 'setImmediate'] });
    try {
      const service = new FakeService();
      const { auth, ended } = client(service);
      auth.onSessionEnded(() => {
        throw new Error('app bug');
      });
      const after: SessionEndReason[] = [];
      auth.onSessionEnded((reason) => after.push(reason));
      await auth.login({ email: USER.email, password: 'secret-1' });

      await auth.logout();

      expect(ended).toEqual(['logout']);
      expect(after).toEqual(['logout']);
      // The listener's error is rethrown on its own, outside the SDK.
      expect(() => jest.runOnlyPendingTimers()).toThrow('app bug');
    } finally {
      jest.useRealTimers();
    }
  });
});

describe('AuthClient: several tabs', () => {
  it('lets two tabs refused at the same moment share one refresh', async () => {
    const service = new FakeService();
    const browser = new FakeBrowser();
    const [first, second] = [client(service, browser), client(service, browser)];

    const results = await Promise.all([first.auth.verifyToken(), second.auth.verifyToken()]);

    expect(results.map((r) => r.success)).toEqual([true, true]);
    expect(service.refreshes).toBe(1);
  });

  it('still tells a signed-in tab its session ended after another tab signed in', async () => {
    const service = new FakeService();
    const browser = new FakeBrowser();
    const [first, second] = [client(service, browser), client(service, browser)];
    await first.auth.login({ email: USER.email, password: 'secret-1' });
    await second.auth.login({ email: USER.email, password: 'secret-1' });
    service.accessGood = false;
    service.refreshAnswer = 'refuse';

    await expect(first.auth.verifyToken()).rejects.toMatchObject({ code: 'INVALID_TOKEN' });

    expect(first.ended).toEqual(['refresh-failed']);
    expect(second.ended).toEqual(['refresh-failed']);
  });

  it('tells every tab when one of them logs out', async () => {
    const service = new FakeService();
    const browser = new FakeBrowser();
    const [first, second] = [client(service, browser), client(service, browser)];
    await first.auth.login({ email: USER.email, password: 'secret-1' });

    await first.auth.logout();

    expect(first.ended).toEqual(['logout']);
    expect(second.ended).toEqual(['logout']);
  });
});

describe('AuthClient: fetch for the app’s own API', () => {
  it('replays the request, body included, after the refresh', async () => {
    const service = new FakeService();
    const { auth } = client(service);

    const response = await auth.fetch('https://auth.test/app/orders', {
      method: 'POST',
      body: JSON.stringify({ item: 42 }),
      headers: { 'content-type': 'application/json' },
    });

    expect(response.status).toBe(200);
    expect(service.bodies).toEqual(['{"item":42}', '{"item":42}']);
    expect(service.refreshes).toBe(1);
  });

  it('returns the refused answer when the refresh is refused too', async () => {
    const service = new FakeService();
    const { auth, ended } = client(service);
    await auth.login({ email: USER.email, password: 'secret-1' });
    service.accessGood = false;
    service.refreshAnswer = 'refuse';

    const response = await auth.fetch('https://auth.test/app/orders');

    expect(response.status).toBe(401);
    expect(ended).toEqual(['refresh-failed']);
  });
});

describe('AuthClient: typed results and errors', () => {
  it('rejects with the envelope’s code, message and status', async () => {
    const fetch = () =>
      Promise.resolve(
        envelope(429, { success: false, message: 'Too many', error: 'RATE_LIMITED' }),
      );
    const auth = new AuthClient({ baseUrl: BASE, fetch, coordination: new FakeBrowser().tab() });

    const error = (await auth
      .login({ email: 'a@example.com', password: 'x' })
      .catch((e: unknown) => e)) as AuthError;

    expect(error).toBeInstanceOf(AuthError);
    expect([error.code, error.status, error.message]).toEqual(['RATE_LIMITED', 429, 'Too many']);
  });

  it('names answers that are not the envelope, and requests that never arrive', async () => {
    const offline = new AuthClient({
      baseUrl: BASE,
      fetch: () => Promise.reject(new TypeError('Failed to fetch')),
      coordination: new FakeBrowser().tab(),
    });

    await expect(offline.forgotPassword({ email: 'a@example.com' })).rejects.toMatchObject({
      code: 'NETWORK_ERROR',
      status: 0,
    });
    const proxy = new AuthClient({
      baseUrl: BASE,
      fetch: () => Promise.resolve(new Response('<html>bad gateway</html>', { status: 502 })),
      coordination: new FakeBrowser().tab(),
    });
    await expect(proxy.forgotPassword({ email: 'a@example.com' })).rejects.toMatchObject({
      code: 'UNEXPECTED_RESPONSE',
      status: 502,
    });
  });
});
