import { envelope, recording, tabs } from './auth-client.fakes.js';

const ok = (data?: object) =>
  envelope(200, { success: true, message: 'ok', ...(data ? { data } : {}) });
const BACK = 'https://app.example.com/signed-in?from=menu';

describe('AuthClient: identity providers', () => {
  it('lists the providers, starts SSO and manages linked identities', async () => {
    const { fetch, seen } = recording((_method, path) =>
      path === '/auth/providers'
        ? ok({ providers: [{ id: 'google', name: 'Google' }] })
        : path === '/auth/sso/start'
          ? ok({ provider: 'acme', url: 'https://auth.example.com/x' })
          : ok({ identities: [] }),
    );
    const [{ auth }] = tabs(fetch, 1);

    const listed = await auth.identityProviders.list();
    expect(listed.data.providers).toEqual([{ id: 'google', name: 'Google' }]);
    const sso = await auth.identityProviders.startSingleSignOn({
      email: 'ann@acme.example',
      redirectTo: BACK,
    });
    expect(sso.data.provider).toBe('acme');
    await auth.identityProviders.listLinked();
    await auth.identityProviders.unlink('git hub');
    expect(seen).toEqual([
      { method: 'GET', path: '/auth/providers', body: null },
      {
        method: 'POST',
        path: '/auth/sso/start',
        body: { email: 'ann@acme.example', redirect_to: BACK },
      },
      { method: 'GET', path: '/users/me/identities', body: null },
      { method: 'DELETE', path: '/users/me/identities/git%20hub', body: null },
    ]);
  });

  it('builds the start addresses a browser navigates to', () => {
    const { fetch } = recording(() => ok());
    const [{ auth }] = tabs(fetch, 1);
    const signIn = new URL(auth.identityProviders.signInUrl('google', BACK));
    expect(signIn.pathname.endsWith('/auth/providers/google/start')).toBe(true);
    expect(signIn.searchParams.get('redirect_to')).toBe(BACK);
    const link = new URL(auth.identityProviders.linkUrl('github', BACK));
    expect(link.pathname.endsWith('/users/me/identities/github/start')).toBe(true);
    expect(link.searchParams.get('redirect_to')).toBe(BACK);
  });

  it('reads what the round trip left in the address', () => {
    const { fetch } = recording(() => ok());
    const [{ auth }] = tabs(fetch, 1);
    expect(auth.identityProviders.readReturn(BACK)).toEqual({ kind: 'done' });
    expect(auth.identityProviders.readReturn(`${BACK}&error=ACCOUNT_EXISTS`)).toEqual({
      kind: 'error',
      error: 'ACCOUNT_EXISTS',
    });
    expect(
      auth.identityProviders.readReturn(
        `${BACK}#mfa_required=true&challenge=abc&methods=totp,passkey`,
      ),
    ).toEqual({ kind: 'second_factor', challenge: 'abc', methods: ['totp', 'passkey'] });
  });
});
