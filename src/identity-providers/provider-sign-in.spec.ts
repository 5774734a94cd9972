import { callbackRedirect } from './callback-redirect';
import { usernameFor } from './identity-accounts.service';

describe('a federated sign-in', () => {
  it('derives a username from the provider’s hint or the address, unique on later tries', () => {
    expect(usernameFor({ username: 'octo cat!', email: null }, 0)).toBe('octocat');
    expect(usernameFor({ username: null, email: 'Ann.Lee@Example.com' }, 0)).toBe('ann.lee');
    expect(usernameFor({ username: 'jo', email: null }, 0)).toBe('userjo');
    expect(usernameFor({ username: 'ann', email: null }, 1)).toMatch(/^ann-\d{6}$/);
    expect(usernameFor({ username: 'ı'.repeat(40), email: null }, 0)).toBe('user');
  });

  it('goes back to the app with the outcome in the address', () => {
    const back = 'http://localhost:5173/in?x=1';
    expect(callbackRedirect({ kind: 'linked', redirectTo: back })).toBe(back);
    expect(callbackRedirect({ kind: 'error', redirectTo: back, error: 'ACCOUNT_EXISTS' })).toBe(
      `${back}&error=ACCOUNT_EXISTS`,
    );
    const pending = callbackRedirect({
      kind: 'second_factor',
      redirectTo: back,
      pending: { mfa_required: true, challenge: 'c-1', methods: ['totp', 'passkey'] },
    });
    expect(pending).toBe(`${back}#mfa_required=true&challenge=c-1&methods=totp%2Cpasskey`);
  });
});
