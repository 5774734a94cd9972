import { USER, envelope, recording, tabs } from './auth-client.fakes.js';
import { isSecondFactorRequired } from './sign-in-result.js';

const ok = (data?: object) =>
  envelope(200, { success: true, message: 'ok', ...(data ? { data } : {}) });
const fail = (status: number, error: string) =>
  envelope(status, { success: false, message: error.toLowerCase(), error });
const CHALLENGE = {
  mfa_required: true,
  challenge: 'challenge-1',
  methods: ['totp', 'recovery_code'],
};
const TOKENS = {
  access_token: 'a',
  refresh_token: 'r',
  token_type: 'Bearer',
  expires_in: 900,
  user: { id: USER.id },
};
const routeOf = (r: { method: string; path: string }) => `${r.method} ${r.path}`;

describe('AuthClient: a login with a second step', () => {
  it('answers the challenge and starts no session until the second step succeeds', async () => {
    const { fetch, seen } = recording((_method, path) =>
      path === '/auth/login'
        ? envelope(200, { success: true, message: 'Second factor required', data: CHALLENGE })
        : ok({ user: USER }),
    );
    const [first, second] = tabs(fetch);

    const result = await first.auth.password.signIn({ email: USER.email, password: 'secret-1' });

    expect(isSecondFactorRequired(result)).toBe(true);
    if (!isSecondFactorRequired(result)) throw new Error('narrowed above');
    expect(result.data).toEqual(CHALLENGE);
    // Nobody was told of a sign-in: there is none yet.
    expect([first.started, second.started]).toEqual([[], []]);

    const signedIn = await first.auth.secondFactor.verify({
      challenge: result.data.challenge,
      code: ' 123 456 ',
    });

    expect(signedIn.data.user).toEqual(USER);
    expect(seen[1]).toEqual({
      method: 'POST',
      path: '/auth/mfa/verify',
      body: { challenge: 'challenge-1', code: '123456' },
    });
    // Exactly what login() does: this tab's listeners, the other tabs', with the user.
    expect(first.started).toEqual([{ source: 'this-tab', user: USER }]);
    expect(second.started).toEqual([{ source: 'other-tab', user: USER }]);
  });

  it('a login without a second step signs in at once, and is not taken for one', async () => {
    const { fetch } = recording(() => ok({ user: USER }));
    const [{ auth, started }] = tabs(fetch, 1);

    const result = await auth.password.signIn({ email: USER.email, password: 'secret-1' });

    expect(isSecondFactorRequired(result)).toBe(false);
    if (isSecondFactorRequired(result)) throw new Error('narrowed above');
    expect(result.data.user).toEqual(USER);
    expect(started).toEqual([{ source: 'this-tab', user: USER }]);
  });

  it('sends a recovery code as it is, and only the field given', async () => {
    const { fetch, seen } = recording(() => ok({ user: USER }));
    const [{ auth }] = tabs(fetch, 1);

    await auth.secondFactor.verify({ challenge: 'c', recovery_code: 'k7qxm-4pzrt' });

    expect(seen).toEqual([
      {
        method: 'POST',
        path: '/auth/mfa/verify',
        body: { challenge: 'c', recovery_code: 'k7qxm-4pzrt' },
      },
    ]);
  });

  it('a wrong code or an expired challenge rejects, signs nobody in, and refreshes nothing', async () => {
    const answers = [fail(401, 'INVALID_MFA_CODE'), fail(401, 'INVALID_TOKEN')];
    const { fetch, seen } = recording(() => answers.shift()!);
    const [first, second] = tabs(fetch);

    await expect(
      first.auth.secondFactor.verify({ challenge: 'c', code: '000000' }),
    ).rejects.toMatchObject({ code: 'INVALID_MFA_CODE', status: 401 });
    await expect(
      first.auth.secondFactor.verify({ challenge: 'c', code: '111111' }),
    ).rejects.toMatchObject({ code: 'INVALID_TOKEN', status: 401 });

    expect(seen.map(routeOf)).toEqual(['POST /auth/mfa/verify', 'POST /auth/mfa/verify']);
    expect([first.started, second.started, first.ended]).toEqual([[], [], []]);
  });

  it('for non-browser clients: the challenge from loginForTokens, the tokens from its second step', async () => {
    const { fetch, seen, headers } = recording((_method, path) =>
      path === '/auth/login'
        ? envelope(200, { success: true, message: 'Second factor required', data: CHALLENGE })
        : envelope(200, TOKENS),
    );
    const [{ auth, started }] = tabs(fetch, 1);

    const step = await auth.password.signInForTokens({ email: USER.email, password: 'secret-1' });
    expect(isSecondFactorRequired(step)).toBe(true);
    if (!isSecondFactorRequired(step)) throw new Error('narrowed above');
    const tokens = await auth.secondFactor.verifyForTokens({
      challenge: step.data.challenge,
      code: '123456',
    });

    expect(tokens).toEqual(TOKENS);
    expect(isSecondFactorRequired(tokens)).toBe(false);
    expect(seen.map(routeOf)).toEqual(['POST /auth/login', 'POST /auth/mfa/verify']);
    expect(headers.map((h) => h.get('x-token-delivery'))).toEqual(['body', 'body']);
    // The cookie session of this client is another matter.
    expect(started).toEqual([]);
  });
});

describe('AuthClient: the signed-in user’s second factor', () => {
  it('sends each call to its route with exactly its body', async () => {
    const { fetch, seen } = recording(() => ok({ user: USER, recovery_codes: [] }));
    const [{ auth }] = tabs(fetch, 1);

    await auth.secondFactor.get();
    await auth.secondFactor.beginTotpEnrolment();
    await auth.secondFactor.confirmTotpEnrolment('123 456');
    await auth.secondFactor.regenerateRecoveryCodes();
    await auth.secondFactor.disableTotp({ code: '654321' });
    await auth.secondFactor.disableTotp({ password: 'secret 1 ' });
    await auth.reauthenticate({ password: 'secret-1' });
    await auth.reauthenticate({ code: '222 333' });
    await auth.admin.resetSecondFactor('user/1');

    expect(seen.map((r) => `${routeOf(r)} ${JSON.stringify(r.body)}`)).toEqual([
      'GET /users/me/mfa null',
      'POST /users/me/mfa/totp null',
      'POST /users/me/mfa/totp/confirm {"code":"123456"}',
      'POST /users/me/mfa/recovery-codes null',
      'DELETE /users/me/mfa/totp {"code":"654321"}',
      // A password is sent exactly as typed.
      'DELETE /users/me/mfa/totp {"password":"secret 1 "}',
      'POST /auth/reauthenticate {"password":"secret-1"}',
      'POST /auth/reauthenticate {"code":"222333"}',
      'DELETE /admin/users/user%2F1/mfa null',
    ]);
  });

  it('a wrong code on a signed-in route is answered as it is: no refresh, not sent twice', async () => {
    const { fetch, seen } = recording(() => fail(401, 'INVALID_MFA_CODE'));
    const [{ auth, ended }] = tabs(fetch, 1);

    await expect(auth.secondFactor.confirmTotpEnrolment('000000')).rejects.toMatchObject({
      code: 'INVALID_MFA_CODE',
      status: 401,
    });
    await expect(auth.secondFactor.disableTotp({ code: '000000' })).rejects.toMatchObject({
      code: 'INVALID_MFA_CODE',
    });
    await expect(auth.reauthenticate({ code: '000000' })).rejects.toMatchObject({
      code: 'INVALID_MFA_CODE',
    });

    expect(seen.map(routeOf)).toEqual([
      'POST /users/me/mfa/totp/confirm',
      'DELETE /users/me/mfa/totp',
      'POST /auth/reauthenticate',
    ]);
    expect(ended).toEqual([]);
  });

  it('an expired access token on the same routes is refreshed and the call sent again', async () => {
    let fresh = false;
    const { fetch, seen } = recording((_method, path) => {
      if (path === '/auth/refresh') fresh = true;
      return fresh || path === '/auth/refresh'
        ? ok({ recovery_codes: ['a'] })
        : fail(401, 'INVALID_TOKEN');
    });
    const [{ auth }] = tabs(fetch, 1);

    await expect(auth.secondFactor.confirmTotpEnrolment('123456')).resolves.toMatchObject({
      data: { recovery_codes: ['a'] },
    });

    expect(seen.map(routeOf)).toEqual([
      'POST /users/me/mfa/totp/confirm',
      'POST /auth/refresh',
      'POST /users/me/mfa/totp/confirm',
    ]);
    expect(seen[2].body).toEqual({ code: '123456' });
  });

  it('a route that needs a recent sign-in says so; reauthenticating renews the cookies of the same session', async () => {
    let recent = false;
    const { fetch, seen } = recording((_method, path) => {
      if (path === '/auth/reauthenticate') {
        recent = true;
        return ok({ user: USER });
      }
      return recent ? ok({ recovery_codes: ['a'] }) : fail(403, 'REAUTHENTICATION_REQUIRED');
    });
    const [first, second] = tabs(fetch);

    await expect(first.auth.secondFactor.regenerateRecoveryCodes()).rejects.toMatchObject({
      code: 'REAUTHENTICATION_REQUIRED',
      status: 403,
    });
    await first.auth.reauthenticate({ password: 'secret-1' });
    await expect(first.auth.secondFactor.regenerateRecoveryCodes()).resolves.toMatchObject({
      data: { recovery_codes: ['a'] },
    });

    expect(seen.map(routeOf)).toEqual([
      'POST /users/me/mfa/recovery-codes',
      'POST /auth/reauthenticate',
      'POST /users/me/mfa/recovery-codes',
    ]);
    // The same session: nothing started or ended, and the tabs know the cookies are new.
    expect([first.started, second.started, first.ended, second.ended]).toEqual([[], [], [], []]);
    expect(first.browser.tab().lastRefresh()).toBeGreaterThan(0);
  });
});
