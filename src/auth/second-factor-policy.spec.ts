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
});
