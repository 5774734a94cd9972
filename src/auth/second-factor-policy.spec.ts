import { codeAfterFirstStep } from '../sessions/refresh-claims';
import { showsSecondFactor } from './second-factor-policy';

describe('what an access token says of its second factor (MFA_REQUIRED_ROLES)', () => {
  it.each([
    [['pwd', 'otp'], true],
    [['fed', 'otp'], true],
    [['otp', 'mfa'], true],
    [['pwd', 'hwk', 'mfa'], true],
    [['hwk'], true],
    [['swk'], true],
    [['pwd'], false],
    [['fed'], false],
    // A mailed code, at sign-in or a step-up: the mailbox, one factor.
    [['otp'], false],
    [[], false],
    [undefined, false],
  ])('%j shows one: %s', (amr, shown) => {
    expect(showsSecondFactor(amr)).toBe(shown);
  });

  it("says a step-up with the app's code as a login's second step says it, never otp alone", () => {
    expect(codeAfterFirstStep(['pwd'])).toEqual(['pwd', 'otp']);
    expect(codeAfterFirstStep(['pwd', 'otp'])).toEqual(['pwd', 'otp']);
    expect(codeAfterFirstStep(['fed'])).toEqual(['fed', 'otp']);
    expect(codeAfterFirstStep(['otp'])).toEqual(['otp', 'mfa']);
    expect(codeAfterFirstStep(['swk'])).toEqual(['swk', 'otp', 'mfa']);
    for (const amr of [['pwd'], ['fed'], ['otp'], ['hwk']]) {
      expect(showsSecondFactor(codeAfterFirstStep(amr))).toBe(true);
    }
    // A token from before `amr`: its first step is unknown, and nothing more is claimed.
    expect(codeAfterFirstStep(undefined)).toEqual(['otp']);
  });
});
