import { createAuthClient } from './auth-client.js';
import { renewalDelay } from './renewal-timer.js';
import type { SessionEndReason } from './types.js';
import {
  BASE,
  EVERY_PART,
  FakeBrowser,
  FakeService,
  FakeTimers,
  USER,
  client,
  envelope,
  settle,
} from './auth-client.fakes.js';

const CREDENTIALS = { email: USER.email, password: 'secret-1' };

describe('renewalDelay: when to renew ahead of an access token’s expiry', () => {
  it('renews at 80% of a long lifetime', () => {
    expect(renewalDelay(900)).toBe(720_000);
    expect(renewalDelay(60)).toBe(48_000);
  });

  it('renews at least a second before the end, counting a second lost to whole seconds', () => {
    // 5 s nominal, at least 4 s for sure: a second before that.
    expect(renewalDelay(5)).toBe(3_000);
    expect(renewalDelay(3)).toBe(1_000);
  });

  it('never renews sooner than half the sure lifetime: a 2-second token, twice a lifetime', () => {
    expect(renewalDelay(2)).toBe(500);
  });

  it('leaves a token that may already be gone to the 401 path', () => {
    expect(renewalDelay(1)).toBeUndefined();
    expect(renewalDelay(0)).toBeUndefined();
    expect(renewalDelay(Number.NaN)).toBeUndefined();
  });
});

describe('AuthClient: renewing the session ahead of the access token’s expiry', () => {
  function signedInClient(options: { browser?: FakeBrowser; renewAhead?: boolean } = {}) {
    const service = new FakeService();
    service.expiresIn = 900;
    const timers = new FakeTimers();
    const { auth, ended } = client(service, options.browser, {
      timers,
      renewAhead: options.renewAhead,
    });
    return { service, timers, auth, ended };
  }

  it('schedules one renewal after a login, and renews with no call refused first', async () => {
    const { service, timers, auth } = signedInClient();
    await auth.password.signIn(CREDENTIALS);

    expect(timers.pending).toHaveLength(1);
    expect(timers.delays[0]).toBeGreaterThan(719_000);
    expect(timers.delays[0]).toBeLessThanOrEqual(720_000);

    await timers.fire();
    expect(service.calls).toEqual(['POST /auth/login', 'POST /auth/refresh']);
    // The refresh answered a new lifetime: the next renewal is set from it.
    expect(timers.pending).toHaveLength(1);
    await auth.verifyToken();
    expect(service.calls.at(-1)).toBe('GET /auth/verify-token');
    expect(service.refreshes).toBe(1);
  });

  it('renews again at the next turn: its own renewal is not taken for another tab’s', async () => {
    // A clock that moves at every reading: any note after the timer was set would show.
    let now = Date.now();
    jest.spyOn(Date, 'now').mockImplementation(() => ++now);
    try {
      const { service, timers, auth } = signedInClient();
      await auth.password.signIn(CREDENTIALS);
      for (let turn = 1; turn <= 3; turn++) {
        await timers.fire();
        expect(service.refreshes).toBe(turn);
      }
      expect(service.calls).not.toContain('GET /auth/session');
    } finally {
      jest.restoreAllMocks();
    }
  });

  it('schedules from status(), and from refreshes made for a refused call or asked for', async () => {
    const { service, timers, auth } = signedInClient();
    service.accessGood = true;
    expect(await auth.status()).toMatchObject({ state: 'signed-in' });
    expect(timers.pending).toHaveLength(1);

    // The timer did not run in time (a sleeping laptop): the 401 path refreshes, and schedules.
    timers.pending = [];
    service.accessGood = false;
    await auth.verifyToken();
    expect(service.refreshes).toBe(1);
    expect(timers.pending).toHaveLength(1);

    await auth.refresh();
    expect(timers.pending).toHaveLength(1);
  });

  it('sets no timer while signed out, nor for a service that does not say the lifetime', async () => {
    const { service, timers, auth } = signedInClient();
    service.refreshCookie = false;
    expect(await auth.status()).toEqual({ state: 'signed-out' });
    expect(timers.pending).toEqual([]);

    service.expiresIn = undefined;
    await auth.password.signIn(CREDENTIALS);
    expect(timers.pending).toEqual([]);
  });

  it('sets none when told not to (renewAhead: false)', async () => {
    const { timers, auth } = signedInClient({ renewAhead: false });
    await auth.password.signIn(CREDENTIALS);
    expect(timers.pending).toEqual([]);
  });

  it('clears the timer on logout, when another tab signs out, and on close()', async () => {
    const { timers, auth } = signedInClient();
    await auth.password.signIn(CREDENTIALS);
    await auth.logout();
    expect(timers.pending).toEqual([]);

    const browser = new FakeBrowser();
    const first = signedInClient({ browser });
    const second = signedInClient({ browser });
    second.service.accessGood = true;
    await first.auth.password.signIn(CREDENTIALS);
    expect(second.timers.pending).toHaveLength(1);
    await first.auth.logout();
    expect(second.ended).toEqual(['logout']);
    expect(second.timers.pending).toEqual([]);

    await first.auth.password.signIn(CREDENTIALS);
    first.auth.close();
    expect(first.timers.pending).toEqual([]);
  });

  it('ends the session when the renewal is refused, and sets no new timer', async () => {
    const { service, timers, auth, ended } = signedInClient();
    await auth.password.signIn(CREDENTIALS);
    service.refreshAnswer = 'refuse';

    await timers.fire();

    expect(ended).toEqual(['refresh-failed']);
    expect(timers.pending).toEqual([]);
  });

  it('signs no one out when the renewal fails for a passing reason; a refused call still refreshes', async () => {
    const { service, timers, auth, ended } = signedInClient();
    await auth.password.signIn(CREDENTIALS);
    service.refreshAnswer = 'unavailable';

    await timers.fire();

    expect(service.refreshes).toBe(1);
    expect(ended).toEqual([]);
    expect(await auth.status()).toMatchObject({ state: 'signed-in' });
    // The token has expired since: the 401 → refresh → retry path takes over.
    service.refreshAnswer = 'renew';
    service.accessGood = false;
    expect((await auth.verifyToken()).data.user).toEqual(USER);
    expect(service.refreshes).toBe(2);
    expect(ended).toEqual([]);
  });

  it('renews once for every tab: a tab told of another’s renewal reschedules instead', async () => {
    const browser = new FakeBrowser();
    const service = new FakeService();
    service.expiresIn = 900;
    const [first, second] = [new FakeTimers(), new FakeTimers()].map((timers) => ({
      timers,
      auth: createAuthClient({
        plugins: EVERY_PART,
        baseUrl: BASE,
        fetch: service.fetch,
        coordination: browser.tab(),
        timers,
      }),
    }));
    await first.auth.password.signIn(CREDENTIALS);
    // Told of the login, the other tab renews ahead of the same token.
    expect(second.timers.pending).toHaveLength(1);
    const before = second.timers.pending[0].id;

    await first.timers.fire();
    expect(service.refreshes).toBe(1);
    // Told of the renewal: a new timer for the new token, the old one gone.
    expect(second.timers.pending).toHaveLength(1);
    expect(second.timers.pending[0].id).not.toBe(before);

    // Both due at once: one refresh between them.
    await Promise.all([first.timers.fire(), second.timers.fire()]);
    expect(service.refreshes).toBe(2);
    expect(service.calls.filter((call) => call === 'GET /auth/session')).toEqual([]);
    expect(first.timers.pending).toHaveLength(1);
    expect(second.timers.pending).toHaveLength(1);
  });

  it('asks the session instead of refreshing when another tab renewed and its message is late', async () => {
    const browser = new FakeBrowser();
    const service = new FakeService();
    service.expiresIn = 900;
    const firstTimers = new FakeTimers();
    const first = createAuthClient({
      plugins: EVERY_PART,
      baseUrl: BASE,
      fetch: service.fetch,
      coordination: browser.tab(),
      timers: firstTimers,
    });
    // This tab hears nothing from the others (a message still on its way).
    const deaf = { ...browser.tab(), listen: () => undefined };
    const secondTimers = new FakeTimers();
    const second = createAuthClient({
      plugins: EVERY_PART,
      baseUrl: BASE,
      fetch: service.fetch,
      coordination: deaf,
      timers: secondTimers,
    });
    const ended: SessionEndReason[] = [];
    second.onSessionEnded((reason) => ended.push(reason));
    await first.password.signIn(CREDENTIALS);
    await second.status();
    expect(secondTimers.pending).toHaveLength(1);
    await new Promise((resolve) => setTimeout(resolve, 5));

    await firstTimers.fire();
    service.calls = [];
    await secondTimers.fire();

    expect(service.refreshes).toBe(1);
    expect(service.calls).toEqual(['GET /auth/session']);
    expect(secondTimers.pending).toHaveLength(1);
    expect(ended).toEqual([]);
    await settle();
  });

  it('logs out once a renewal on its way has been answered, and renews no more', async () => {
    const { service, timers, auth, ended } = signedInClient();
    await auth.password.signIn(CREDENTIALS);
    service.holdRefreshes = true;
    await timers.fire();

    const loggedOut = auth.logout();
    await settle();
    expect(service.calls).toEqual(['POST /auth/login', 'POST /auth/refresh']);
    service.releaseRefreshes();
    await loggedOut;

    expect(service.calls).toEqual(['POST /auth/login', 'POST /auth/refresh', 'POST /auth/logout']);
    expect(ended).toEqual(['logout']);
    expect(timers.pending).toEqual([]);
  });

  /**
   * A password change ends every session and answers this browser with a new one. A renewal
   * sent while it is on its way carries the old refresh token, which the service may already
   * have revoked when the renewal arrives: refused, it is answered before the change is.
   */
  function changingPassword(passwordAnswer: 'ok' | 'wrong') {
    const service = { refuseRefresh: false, answerPassword: () => undefined as void };
    const ok = (data: object) => envelope(200, { success: true, message: 'ok', data });
    const refused = (error: string, status: number) =>
      envelope(status, { success: false, message: 'no', error });
    const fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
      const path = new URL(new Request(input, init).url).pathname.replace('/api/v1', '');
      if (path === '/users/me/password') {
        if (passwordAnswer === 'ok') service.refuseRefresh = true;
        await new Promise<void>((resolve) => (service.answerPassword = resolve));
        if (passwordAnswer === 'wrong') return refused('INVALID_PASSWORD', 403);
        return ok({ user: USER, expires_in: 900 });
      }
      if (path === '/auth/refresh' && service.refuseRefresh) return refused('INVALID_TOKEN', 401);
      return ok({ user: USER, expires_in: 900 });
    };
    const timers = new FakeTimers();
    const { auth, ended } = client(new FakeService(), undefined, { timers, fetch });
    return { service, auth, ended, timers };
  }

  it('keeps the session when a password change on its way revoked the renewal’s token', async () => {
    const { service, auth, ended, timers } = changingPassword('ok');
    await auth.password.signIn(CREDENTIALS);
    const changed = auth.password.change({ currentPassword: 'secret-1', newPassword: 'n3w-1' });
    await settle();

    await timers.fire();
    service.answerPassword();
    await changed;
    await settle();

    expect(ended).toEqual([]);
    expect(timers.pending).toHaveLength(1);
    expect(await auth.status()).toMatchObject({ state: 'signed-in' });
  });

  it('ends the session on a refused renewal all the same when the password change fails', async () => {
    const { service, auth, ended, timers } = changingPassword('wrong');
    await auth.password.signIn(CREDENTIALS);
    const changed = auth.password.change({ currentPassword: 'wrong-1', newPassword: 'n3w-1' });
    await settle();
    // Ended elsewhere meanwhile: the refusal is about this session, not about the change.
    service.refuseRefresh = true;

    await timers.fire();
    expect(ended).toEqual([]);
    service.answerPassword();
    await expect(changed).rejects.toMatchObject({ code: 'INVALID_PASSWORD' });
    await settle();

    expect(ended).toEqual(['refresh-failed']);
    expect(timers.pending).toEqual([]);
  });
});
