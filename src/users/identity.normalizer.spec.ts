import { normalizeEmail, normalizeUsername } from './identity.normalizer';

describe('identity normal forms', () => {
  it('trims, composes and lower-cases emails', () => {
    expect(normalizeEmail('  Ann@Example.COM ')).toBe('ann@example.com');
    // "é" typed as e + combining accent equals the precomposed letter.
    expect(normalizeEmail('Jose\u0301@x.io')).toBe(normalizeEmail('José@x.io'));
  });

  it('never merges a dotless ı with an i', () => {
    expect(normalizeEmail('mıke@x.io')).not.toBe(normalizeEmail('mike@x.io'));
    expect(normalizeEmail('MIKE@x.io')).toBe('mike@x.io');
  });

  it('lower-cases usernames', () => {
    expect(normalizeUsername(' Ann.Smith ')).toBe('ann.smith');
  });
});
