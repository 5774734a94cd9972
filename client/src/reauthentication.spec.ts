import { startAuthentication } from '@simplewebauthn/browser';
import { USER, envelope, recording, tabs } from './auth-client.fakes.js';

// The browser's WebAuthn prompt, as the authenticator would answer it.
jest.mock('@simplewebauthn/browser', () => ({
  ...jest.requireActual<object>('@simplewebauthn/browser'),
  startAuthentication: jest.fn(),
}));
const authenticate = jest.mocked(startAuthentication);

const ok = (data?: object) =>
  envelope(200, { success: true, message: 'ok', ...(data ? { data } : {}) });
const OPTIONS = { challenge: 'c3RlcCB1cA', rpId: 'localhost', userVerification: 'required' };
const ASSERTION = { id: 'AAAA', rawId: 'AAAA', type: 'public-key', response: {} };
const BACK = 'https://app.example.com/account';
const routeOf = (r: { method: string; path: string; body: unknown }) =>
  `${r.method} ${r.path} ${JSON.stringify(r.body)}`;

describe('AuthClient: a step-up with each proof an account can have', () => {
  beforeEach(() => authenticate.mockReset());

  it('mails a code and steps up with it, its spaces dropped', async () => {
    const { fetch, seen } = recording((_method, path) =>
      path === '/auth/reauthenticate/email-code' ? ok({ expires_in: 600 }) : ok({ user: USER }),
    );
    const [first, second] = tabs(fetch);

    const asked = await first.auth.requestReauthenticationCode();
    expect(asked.data.expires_in).toBe(600);
    await first.auth.reauthenticate({ emailCode: ' 123 456 ' });

    expect(seen.map(routeOf)).toEqual([
      'POST /auth/reauthenticate/email-code null',
      'POST /auth/reauthenticate {"email_code":"123456"}',
    ]);
    // The same session, renewed: nothing started or ended, the tabs know the cookies are new.
    expect([first.started, second.started, first.ended, second.ended]).toEqual([[], [], [], []]);
    expect(first.browser.tab().lastRefresh()).toBeGreaterThan(0);
  });

  it('steps up with a passkey: the options to the authenticator, its answer to reauthenticate', async () => {
    authenticate.mockResolvedValue(ASSERTION as never);
    const { fetch, seen } = recording((_method, path) =>
      path === '/auth/reauthenticate/passkey/options'
        ? ok({ options: OPTIONS })
        : ok({ user: USER, expires_in: 900 }),
    );
    const [{ auth, started }] = tabs(fetch, 1);

    const result = await auth.passkeys.reauthenticate();

    expect(result.data.user).toEqual(USER);
    expect(authenticate).toHaveBeenCalledWith({ optionsJSON: OPTIONS, useBrowserAutofill: false });
    expect(seen.map(routeOf)).toEqual([
      'POST /auth/reauthenticate/passkey/options null',
      `POST /auth/reauthenticate ${JSON.stringify({ passkey: ASSERTION })}`,
    ]);
    expect(started).toEqual([]);
  });

  it('builds the address of a step-up through a linked provider', () => {
    const { fetch } = recording(() => ok());
    const [{ auth }] = tabs(fetch, 1);
    const url = new URL(auth.identityProviders.reauthenticateUrl('corp id', BACK));
    expect(url.pathname).toBe('/api/v1/auth/reauthenticate/providers/corp%20id/start');
    expect(url.searchParams.get('redirect_to')).toBe(BACK);
    expect(auth.identityProviders.readReturn(`${BACK}?error=IDENTITY_NOT_FOUND`)).toEqual({
      kind: 'error',
      error: 'IDENTITY_NOT_FOUND',
    });
  });

  it('sends no password for an account without one', async () => {
    const { fetch, seen } = recording(() => ok());
    const [{ auth, ended }] = tabs(fetch, 1);

    await auth.account.requestEmailChange({ newEmail: 'new@example.com' });
    await auth.secondFactor.disableTotp();
    await auth.account.delete();

    expect(seen.map(routeOf)).toEqual([
      'POST /users/me/email {"newEmail":"new@example.com"}',
      'DELETE /users/me/mfa/totp {}',
      'DELETE /users/me {}',
    ]);
    expect(ended).toEqual(['account-deleted']);
  });
});
