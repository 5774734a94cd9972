import { LocalLoginBackoff } from './local-login-backoff';

describe('LocalLoginBackoff', () => {
  const config = { free: 2, baseSeconds: 1, maxSeconds: 4, resetSeconds: 10 };
  let backoff: LocalLoginBackoff;
  beforeEach(() => {
    backoff = new LocalLoginBackoff(config);
  });

  /** Attempts one second apart from `start`; each answer is the wait in ms (0: admitted). */
  const attempts = (key: string, start: number, count: number) =>
    Array.from({ length: count }, (_, i) => backoff.admit(key, start + i * 1000));

  it('admits the free attempts, then doubles the wait up to the cap', () => {
    const now = 1_000_000;
    expect(backoff.admit('a', now)).toBe(0);
    expect(backoff.admit('a', now)).toBe(0);
    expect(backoff.admit('a', now + 500)).toBe(500);
    expect(backoff.admit('a', now + 1000)).toBe(0);
    expect(backoff.admit('a', now + 1000)).toBe(2000);
    expect(backoff.admit('a', now + 3000)).toBe(0);
    expect(backoff.admit('a', now + 3000)).toBe(4000);
    expect(backoff.admit('a', now + 7000)).toBe(0);
    // Capped: 4 s, not 8.
    expect(backoff.admit('a', now + 7000)).toBe(4000);
  });

  it('forgets an account after the quiet period, and at once on forget', () => {
    expect(attempts('a', 0, 2)).toEqual([0, 0]);
    expect(backoff.admit('a', 1500)).toBe(500);
    // Ten seconds after the last counted attempt: free again.
    expect(attempts('a', 11_000, 2)).toEqual([0, 0]);
    expect(backoff.admit('a', 12_000)).toBe(1000);
    backoff.forget('a');
    expect(backoff.admit('a', 12_000)).toBe(0);
  });

  it('keeps accounts apart', () => {
    expect(attempts('a', 0, 2)).toEqual([0, 0]);
    expect(backoff.admit('b', 1000)).toBe(0);
    expect(backoff.admit('a', 1500)).toBe(500);
  });
});
