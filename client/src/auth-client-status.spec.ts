import { AuthError } from './auth-error.js';
import { FakeBrowser, FakeService, USER, client, clientOn, envelope } from './auth-client.fakes.js';

describe('AuthClient.status(): signed in, signed out, or cannot tell', () => {
  it('says signed out for a visitor without calling anything that fails', async () => {
    const service = new FakeService();
    service.refreshCookie = false;
    const { auth, ended } = client(service);

    await expect(auth.status()).resolves.toEqual({ state: 'signed-out' });

    expect(service.calls).toEqual(['GET /auth/session']);
    expect(ended).toEqual([]);
  });

  it('renews an expired access token first when a refresh cookie is there', async () => {
    const service = new FakeService();
    const { auth } = client(service);

    await expect(auth.status()).resolves.toEqual({ state: 'signed-in', user: USER });

    expect(service.calls).toEqual(['GET /auth/session', 'POST /auth/refresh', 'GET /auth/session']);
  });

  it('says signed out when the refresh is refused', async () => {
    const service = new FakeService();
    service.refreshAnswer = 'refuse';
    const { auth } = client(service);

    await expect(auth.status()).resolves.toEqual({ state: 'signed-out' });
  });

  it('says "unavailable", never "signed out", when the refresh fails for a passing reason', async () => {
    const service = new FakeService();
    service.refreshAnswer = 'unavailable';
    const { auth, ended } = client(service);

    const status = await auth.status();

    expect(status).toMatchObject({ state: 'unavailable', error: { code: 'SERVICE_UNAVAILABLE' } });
    expect(ended).toEqual([]);
  });

  it('says "unavailable" with the wait when the service answers 503, and with NETWORK_ERROR offline', async () => {
    const service = new FakeService();
    service.sessionAnswer = 'unavailable';
    const busy = await client(service).auth.status();
    expect(busy).toMatchObject({
      state: 'unavailable',
      error: { code: 'SERVICE_UNAVAILABLE', status: 503, retryAfter: 7 },
    });

    const offline = clientOn(() => Promise.reject(new TypeError('Failed to fetch')));
    const status = await offline.status();
    expect(status).toMatchObject({ state: 'unavailable', error: { code: 'NETWORK_ERROR' } });
  });
});

describe('AuthClient: hearing sign-ins', () => {
  it('tells this tab’s listeners and the other tabs’ listeners of a login, with the user', async () => {
    const service = new FakeService();
    const browser = new FakeBrowser();
    const [first, second] = [client(service, browser), client(service, browser)];

    await first.auth.password.signIn({ email: USER.email, password: 'secret-1' });

    expect(first.started).toEqual([{ source: 'this-tab', user: USER }]);
    expect(second.started).toEqual([{ source: 'other-tab', user: USER }]);
  });

  it('lets a tab that showed "session ended" hear the next sign-in elsewhere and renew', async () => {
    const service = new FakeService();
    const browser = new FakeBrowser();
    const [first, second] = [client(service, browser), client(service, browser)];
    await first.auth.password.signIn({ email: USER.email, password: 'secret-1' });
    await first.auth.logout();
    expect(second.ended).toEqual(['logout']);

    await first.auth.password.signIn({ email: USER.email, password: 'secret-1' });

    expect(second.started.at(-1)).toMatchObject({ source: 'other-tab' });
    service.accessGood = false;
    await expect(second.auth.verifyToken()).resolves.toMatchObject({ success: true });
  });

  it('stops telling a listener that unsubscribed', async () => {
    const service = new FakeService();
    const { auth } = client(service);
    const heard: string[] = [];
    const stop = auth.onSessionStarted((start) => heard.push(start.source));
    stop();

    await auth.password.signIn({ email: USER.email, password: 'secret-1' });

    expect(heard).toEqual([]);
  });
});

describe('AuthClient.fetch: every failure is an AuthError', () => {
  it('rejects with NETWORK_ERROR when the API cannot be reached', async () => {
    const auth = clientOn(() => Promise.reject(new TypeError('Failed to fetch')));

    const error = (await auth
      .fetch('https://api.test/orders')
      .catch((e: unknown) => e)) as AuthError;

    expect(error).toBeInstanceOf(AuthError);
    expect([error.code, error.status]).toEqual(['NETWORK_ERROR', 0]);
    expect(error.message).toContain('https://api.test');
    expect(error.cause).toBeInstanceOf(TypeError);
  });

  it('rejects with ABORTED when the caller’s signal stops the request', async () => {
    const auth = clientOn(() =>
      Promise.reject(new DOMException('The operation was aborted.', 'AbortError')),
    );

    await expect(auth.fetch('https://api.test/orders')).rejects.toMatchObject({ code: 'ABORTED' });
  });

  it('rejects with the refresh’s own error when a needed refresh fails for a passing reason', async () => {
    const service = new FakeService();
    service.refreshAnswer = 'unavailable';
    const { auth, ended } = client(service);

    await expect(auth.fetch('https://auth.test/app/orders')).rejects.toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
    });
    expect(ended).toEqual([]);
  });
});

describe('AuthClient: other tabs’ refreshes that did not work out', () => {
  it('refreshes itself once when the refresh it waited for left it refused', async () => {
    const service = new FakeService();
    const browser = new FakeBrowser();
    // Another tab's refresh finishes while this call is on its way, but it failed: the
    // cookies are still the old ones.
    const other = browser.tab();
    const send = service.fetch;
    let first = true;
    service.fetch = async (input, init) => {
      const response = await send(input, init);
      if (first) {
        first = false;
        await new Promise((resolve) => setTimeout(resolve, 5));
        other.noteRefresh(Date.now());
      }
      return response;
    };
    const { auth } = client(service, browser);
    await auth.password.signIn({ email: USER.email, password: 'secret-1' });
    service.accessGood = false;
    first = true;

    await expect(auth.verifyToken()).resolves.toMatchObject({ success: true });

    expect(service.refreshes).toBe(1);
    expect(service.calls.slice(1)).toEqual([
      'GET /auth/verify-token',
      'GET /auth/verify-token',
      'POST /auth/refresh',
      'GET /auth/verify-token',
    ]);
  });
});

describe('AuthClient.getProfile()', () => {
  it('reads /users/me, refreshing an expired access token first', async () => {
    const service = new FakeService();
    const { auth } = client(service);

    await expect(auth.account.getProfile()).resolves.toMatchObject({ data: { user: USER } });

    expect(service.calls).toEqual(['GET /users/me', 'POST /auth/refresh', 'GET /users/me']);
  });
});

describe('AuthError: the service’s field errors', () => {
  it('carries the envelope’s details, typed, and joins the messages of one field', async () => {
    const details = [
      { field: 'username', message: 'username must be 3 to 32 letters' },
      { field: 'password', message: 'password is too common' },
      { field: 'password', message: 'password must be at most 72 bytes' },
    ];
    const fetch = () =>
      Promise.resolve(
        envelope(400, { success: false, message: 'Invalid', error: 'VALIDATION_ERROR', details }),
      );
    const auth = clientOn(fetch);

    const error = (await auth.password
      .register({ email: 'a@b', username: 'x', password: 'p' })
      .catch((e: unknown) => e)) as AuthError;

    expect(error.details).toEqual(details);
    expect(error.detailFor('username')).toBe('username must be 3 to 32 letters');
    expect(error.detailFor('password')).toBe(
      'password is too common; password must be at most 72 bytes',
    );
    expect(error.detailFor('email')).toBeUndefined();
  });

  it('says why an emailed link was refused, from the token’s detail', async () => {
    const details = [{ field: 'token', message: 'The reset link has expired', reason: 'expired' }];
    const fetch = () =>
      Promise.resolve(
        envelope(401, { success: false, message: 'Expired', error: 'INVALID_TOKEN', details }),
      );
    const auth = clientOn(fetch);

    const error = (await auth.password
      .reset({ token: 't'.repeat(43), newPassword: 'a new secret' })
      .catch((e: unknown) => e)) as AuthError;

    expect(error.code).toBe('INVALID_TOKEN');
    expect(error.linkRefusal).toBe('expired');
    expect(error.details).toEqual(details);
  });

  it('has no details, not undefined, when the service sent none', async () => {
    const fetch = () =>
      Promise.resolve(envelope(401, { success: false, message: 'No', error: 'LOGIN_FAILED' }));
    const auth = clientOn(fetch);

    const error = (await auth.password
      .signIn({ email: 'a@example.com', password: 'x' })
      .catch((e: unknown) => e)) as AuthError;

    expect(error.details).toEqual([]);
  });
});

describe('AuthClient: the calls for non-browser clients and the reset variants', () => {
  const tokens = {
    access_token: 'a.b.c',
    refresh_token: 'r.s.t',
    token_type: 'Bearer',
    expires_in: 900,
    user: { id: 'user_1', email: 'a@example.com', name: 'a', email_verified: true, picture: null },
  };

  it('asks for the tokens in the body, and sends the refresh token as the cookie', async () => {
    const seen: Request[] = [];
    const fetch = (input: RequestInfo | URL, init?: RequestInit) => {
      seen.push(new Request(input, init));
      return Promise.resolve(envelope(200, tokens));
    };
    const auth = clientOn(fetch);

    await expect(
      auth.password.signInForTokens({ email: 'a@example.com', password: 'p' }),
    ).resolves.toEqual(tokens);
    await expect(auth.refreshForTokens('r.s.t')).resolves.toEqual(tokens);

    expect(seen.map((r) => r.headers.get('x-token-delivery'))).toEqual(['body', 'body']);
    expect(seen[1].headers.get('cookie')).toBe('refresh_token=r.s.t');
  });

  it('sends the contract’s reset variants with exactly their fields', async () => {
    const bodies: string[] = [];
    const fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
      bodies.push(await new Request(input, init).text());
      return envelope(200, { success: true, message: 'ok' });
    };
    const auth = clientOn(fetch);

    await auth.password.requestReset({ email: 'a@example.com' });
    await auth.password.reset({ token: 't', newPassword: 'n3w-secret' });

    expect(bodies.map((b) => JSON.parse(b) as unknown)).toEqual([
      { email: 'a@example.com' },
      { token: 't', newPassword: 'n3w-secret' },
    ]);
  });
});

describe('AuthClient: tabs that race a refresh', () => {
  it('does not say "signed out" after waiting for another tab’s refresh that failed', async () => {
    const service = new FakeService();
    service.refreshAnswer = 'unavailable';
    service.holdRefreshes = true;
    const browser = new FakeBrowser();
    const [first, second] = [client(service, browser), client(service, browser)];

    const statuses = [first.auth.status(), second.auth.status()];
    await new Promise((resolve) => setTimeout(resolve, 10));
    service.releaseRefreshes();

    const [a, b] = await Promise.all(statuses);
    expect(a).toMatchObject({ state: 'unavailable', error: { code: 'SERVICE_UNAVAILABLE' } });
    expect(b).toMatchObject({ state: 'unavailable', error: { code: 'SERVICE_UNAVAILABLE' } });
  });

  it('does not end a session another tab signed into while a refused refresh was on its way', async () => {
    const service = new FakeService();
    const browser = new FakeBrowser();
    const [first, second] = [client(service, browser), client(service, browser)];
    await first.auth.password.signIn({ email: USER.email, password: 'secret-1' });
    service.accessGood = false;
    service.refreshAnswer = 'refuse';
    service.holdRefreshes = true;
    const call = first.auth.verifyToken();
    await new Promise((resolve) => setTimeout(resolve, 10));

    // The refresh token it sent is the old session's; this login replaces it.
    await second.auth.password.signIn({ email: USER.email, password: 'secret-1' });
    service.releaseRefreshes();

    await expect(call).resolves.toMatchObject({ success: true });
    expect(first.ended).toEqual([]);
    expect(second.ended).toEqual([]);
  });
});

describe('AuthClient: a password reset', () => {
  it('ends no session by itself: the token may be another account’s; status() tells', async () => {
    const service = new FakeService();
    const browser = new FakeBrowser();
    const [first, second] = [client(service, browser), client(service, browser)];
    await first.auth.password.signIn({ email: USER.email, password: 'secret-1' });
    const fetch = () => Promise.resolve(envelope(200, { success: true, message: 'Password set' }));
    const resetter = clientOn(fetch, browser.tab());

    await resetter.password.reset({ token: 'someone-elses', newPassword: 'n3w-secret' });

    expect([first.ended, second.ended]).toEqual([[], []]);
  });
});

describe('AuthClient.fetch: a URL it cannot parse', () => {
  it('rejects, never throws before returning a promise', () => {
    const { auth } = client(new FakeService());
    let thrown: unknown;
    let result: Promise<Response> | undefined;
    try {
      result = auth.fetch('http://[not a url');
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeUndefined();
    return expect(result).rejects.toMatchObject({ name: 'TypeError' });
  });
});
