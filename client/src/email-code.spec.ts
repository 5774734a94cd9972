import { AuthError } from './auth-error.js';
import { USER, envelope, recording, tabs } from './auth-client.fakes.js';

const ok = (data?: object) =>
  envelope(200, { success: true, message: 'ok', ...(data ? { data } : {}) });

describe('AuthClient: sign-in with a code by email', () => {
  it('asks for the mail with the page its link should open', async () => {
    const { fetch, seen } = recording(() => ok());
    const [{ auth, started }] = tabs(fetch, 1);

    await auth.emailCode.request({
      email: 'ann@example.com',
      applicationUrl: 'https://app.example.com/sign-in',
    });

    expect(seen).toEqual([
      {
        method: 'POST',
        path: '/auth/email-code',
        body: { email: 'ann@example.com', applicationUrl: 'https://app.example.com/sign-in' },
      },
    ]);
    expect(started).toEqual([]);
  });

  it('signs in with the code (its spaces dropped), every tab told', async () => {
    const { fetch, seen } = recording(() => ok({ user: USER }));
    const [first, second] = tabs(fetch);

    const result = await first.auth.emailCode.signIn({ email: 'ann@example.com', code: '049 213' });

    expect(result.data).toEqual({ user: USER });
    expect(seen).toEqual([
      {
        method: 'POST',
        path: '/auth/email-code/verify',
        body: { email: 'ann@example.com', code: '049213' },
      },
    ]);
    expect(first.started).toEqual([{ source: 'this-tab', user: USER }]);
    expect(second.started).toEqual([{ source: 'other-tab', user: USER }]);
  });

  it('signs in with the token of the link, and sends nothing else', async () => {
    const { fetch, seen } = recording(() => ok({ user: USER }));
    const [{ auth, started }] = tabs(fetch, 1);

    await auth.emailCode.signIn({ token: 'the-token' });

    expect(seen).toEqual([
      { method: 'POST', path: '/auth/email-code/verify', body: { token: 'the-token' } },
    ]);
    expect(started).toEqual([{ source: 'this-tab', user: USER }]);
  });

  it('answers a second step to take first, with no session started', async () => {
    const step = { mfa_required: true, challenge: 'the-challenge', methods: ['totp'] };
    const { fetch } = recording(() => ok(step));
    const [{ auth, started }] = tabs(fetch, 1);

    const result = await auth.emailCode.signIn({ token: 'the-token' });

    expect(result.data).toEqual(step);
    expect(started).toEqual([]);
  });

  it('a wrong code is an AuthError with the service’s code, and no session', async () => {
    const { fetch } = recording(() =>
      envelope(401, {
        success: false,
        message: 'The code is wrong, expired or already used',
        error: 'LOGIN_FAILED',
      }),
    );
    const [{ auth, started }] = tabs(fetch, 1);

    const error = await auth.emailCode
      .signIn({ email: 'ann@example.com', code: '000000' })
      .catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(AuthError);
    expect((error as AuthError).code).toBe('LOGIN_FAILED');
    expect((error as AuthError).status).toBe(401);
    expect(started).toEqual([]);
  });
});
