import { AuthError } from './auth-error.js';
import type { SessionEndReason } from './types.js';
import { FakeBrowser, FakeService, USER, client, clientOn, envelope } from './auth-client.fakes.js';

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
    await auth.password.signIn({ email: USER.email, password: 'secret-1' });
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

  it('keeps the session when a refresh fails for a passing reason, says why, and tries again later', async () => {
    const service = new FakeService();
    service.refreshAnswer = 'unavailable';
    const { auth, ended } = client(service);

    // Not INVALID_TOKEN: the session may be alive, and the app must not show "signed out".
    await expect(auth.verifyToken()).rejects.toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
      status: 503,
    });
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
    await auth.password.signIn({ email: USER.email, password: 'secret-1' });
    service.accessGood = false;
    service.refreshAnswer = 'refuse';
    await expect(auth.verifyToken()).rejects.toBeInstanceOf(AuthError);

    await auth.password.signIn({ email: USER.email, password: 'secret-1' });
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
    await auth.password.signIn({ email: USER.email, password: 'secret-1' });
    service.logoutAnswer = 'no-session';

    await expect(auth.logout()).rejects.toMatchObject({ code: 'INVALID_TOKEN' });

    expect(ended).toEqual(['logout']);
  });

  it('does not claim a logout that failed: the session may still be alive', async () => {
    const service = new FakeService();
    const { auth, ended } = client(service);
    await auth.password.signIn({ email: USER.email, password: 'secret-1' });
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
    await auth.password.signIn({ email: USER.email, password: 'secret-1' });
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
      await auth.password.signIn({ email: USER.email, password: 'secret-1' });

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
    await first.auth.password.signIn({ email: USER.email, password: 'secret-1' });
    await second.auth.password.signIn({ email: USER.email, password: 'secret-1' });
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
    await first.auth.password.signIn({ email: USER.email, password: 'secret-1' });

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
    await auth.password.signIn({ email: USER.email, password: 'secret-1' });
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
    const auth = clientOn(fetch);

    const error = (await auth.password
      .signIn({ email: 'a@example.com', password: 'x' })
      .catch((e: unknown) => e)) as AuthError;

    expect(error).toBeInstanceOf(AuthError);
    expect([error.code, error.status, error.message]).toEqual(['RATE_LIMITED', 429, 'Too many']);
  });

  it('names answers that are not the envelope, and requests that never arrive', async () => {
    const offline = clientOn(() => Promise.reject(new TypeError('Failed to fetch')));

    await expect(offline.password.forgot({ email: 'a@example.com' })).rejects.toMatchObject({
      code: 'NETWORK_ERROR',
      status: 0,
    });
    const proxy = clientOn(() =>
      Promise.resolve(new Response('<html>bad gateway</html>', { status: 502 })),
    );
    await expect(proxy.password.forgot({ email: 'a@example.com' })).rejects.toMatchObject({
      code: 'UNEXPECTED_RESPONSE',
      status: 502,
    });
  });
});
