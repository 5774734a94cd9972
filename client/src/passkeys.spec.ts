import { startAuthentication, startRegistration } from '@simplewebauthn/browser';
import { AuthError } from './auth-error.js';
import { USER, envelope, recording, tabs } from './auth-client.fakes.js';

// The browser's WebAuthn prompt, as the authenticator would answer it.
jest.mock('@simplewebauthn/browser', () => ({
  ...jest.requireActual<object>('@simplewebauthn/browser'),
  startRegistration: jest.fn(),
  startAuthentication: jest.fn(),
}));
const register = jest.mocked(startRegistration);
const authenticate = jest.mocked(startAuthentication);

const ok = (data?: object) =>
  envelope(200, { success: true, message: 'ok', ...(data ? { data } : {}) });
const OPTIONS = { challenge: 'c2lnbiBtZQ', rpId: 'localhost' };
const ASSERTION = { id: 'AAAA', rawId: 'AAAA', type: 'public-key', response: {} };

describe('AuthClient: passkeys', () => {
  beforeEach(() => {
    register.mockReset();
    authenticate.mockReset();
  });

  it('signs in with a passkey: the options to the authenticator, its answer to verify, every tab told', async () => {
    authenticate.mockResolvedValue(ASSERTION as never);
    const { fetch, seen } = recording((_method, path) =>
      path === '/auth/passkey/options' ? ok({ options: OPTIONS }) : ok({ user: USER }),
    );
    const [first, second] = tabs(fetch);

    await first.auth.passkeys.signIn({ autofill: true });

    expect(authenticate).toHaveBeenCalledWith({ optionsJSON: OPTIONS, useBrowserAutofill: true });
    expect(seen).toEqual([
      { method: 'POST', path: '/auth/passkey/options', body: null },
      { method: 'POST', path: '/auth/passkey/verify', body: { response: ASSERTION } },
    ]);
    expect(first.started).toEqual([{ source: 'this-tab', user: USER }]);
    expect(second.started).toEqual([{ source: 'other-tab', user: USER }]);
  });

  it('answers a second step with a passkey for the login’s challenge', async () => {
    authenticate.mockResolvedValue(ASSERTION as never);
    const { fetch, seen } = recording((_method, path) =>
      path === '/auth/mfa/passkey/options' ? ok({ options: OPTIONS }) : ok({ user: USER }),
    );
    const [{ auth, started }] = tabs(fetch, 1);

    await auth.passkeys.verifySecondFactor('the-challenge');

    expect(seen).toEqual([
      { method: 'POST', path: '/auth/mfa/passkey/options', body: { challenge: 'the-challenge' } },
      {
        method: 'POST',
        path: '/auth/mfa/verify',
        body: { challenge: 'the-challenge', passkey: ASSERTION },
      },
    ]);
    expect(started).toEqual([{ source: 'this-tab', user: USER }]);
  });

  it('a dismissed prompt is PASSKEY_CANCELLED, and nothing is sent for it', async () => {
    authenticate.mockRejectedValue(
      Object.assign(new Error('dismissed'), { name: 'NotAllowedError' }),
    );
    const { fetch, seen } = recording(() => ok({ options: OPTIONS }));
    const [{ auth, started }] = tabs(fetch, 1);

    const error = await auth.passkeys.signIn().catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(AuthError);
    expect((error as AuthError).code).toBe('PASSKEY_CANCELLED');
    expect(seen.map((request) => request.path)).toEqual(['/auth/passkey/options']);
    expect(started).toEqual([]);
  });

  it('registers, lists, renames and deletes through the signed-in routes', async () => {
    const created = { id: 'AAAA', rawId: 'AAAA', type: 'public-key', response: {} };
    register.mockResolvedValue(created as never);
    const { fetch, seen } = recording((_method, path) =>
      path === '/users/me/passkeys/options' ? ok({ options: OPTIONS }) : ok({}),
    );
    const [{ auth }] = tabs(fetch, 1);

    await auth.passkeys.register({ name: 'Laptop' });
    await auth.passkeys.list();
    await auth.passkeys.rename('pk_1', 'Work');
    await auth.passkeys.delete('pk_1');

    expect(register).toHaveBeenCalledWith({ optionsJSON: OPTIONS });
    expect(seen).toEqual([
      { method: 'POST', path: '/users/me/passkeys/options', body: null },
      { method: 'POST', path: '/users/me/passkeys', body: { response: created, name: 'Laptop' } },
      { method: 'GET', path: '/users/me/passkeys', body: null },
      { method: 'PATCH', path: '/users/me/passkeys/pk_1', body: { name: 'Work' } },
      { method: 'DELETE', path: '/users/me/passkeys/pk_1', body: null },
    ]);
  });

  it('does not refresh and resend when the service refuses the passkey', async () => {
    register.mockResolvedValue({ id: 'AAAA' } as never);
    const { fetch, seen } = recording((_method, path) =>
      path === '/users/me/passkeys/options'
        ? ok({ options: OPTIONS })
        : envelope(401, { success: false, message: 'no', error: 'INVALID_PASSKEY' }),
    );
    const [{ auth }] = tabs(fetch, 1);

    await expect(auth.passkeys.register()).rejects.toMatchObject({ code: 'INVALID_PASSKEY' });
    expect(seen.map((request) => request.path)).toEqual([
      '/users/me/passkeys/options',
      '/users/me/passkeys',
    ]);
  });
});
