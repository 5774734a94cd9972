import { LocalLoginBackoff } from './local-login-backoff';

describe('LocalLoginBackoff', () => {
  const config = { free: 2, baseSeconds: 1, maxSeconds: 4, resetSeconds: 10 };
  let backoff: LocalLoginBackoff;
  beforeEach(() => {
    backoff = new LocalLoginBackoff(config);
  });

  it('lets the free failures pass, then doubles the wait up to the cap', () => {
    const waits: number[] = [];
    for (let i = 0; i < 5; i++) {
      backoff.failed('a', 0);
      waits.push(backoff.waiting('a', 0));
    }
    // Capped: 4 s, not 8.
    expect(waits).toEqual([0, 1000, 2000, 4000, 4000]);
    expect(backoff.waiting('a', 2500)).toBe(1500);
    expect(backoff.waiting('a', 4000)).toBe(0);
  });

  it('forgets an account after the quiet period, and at once on forget', () => {
    backoff.failed('a', 0);
    backoff.failed('a', 1000);
    expect(backoff.waiting('a', 1500)).toBe(500);
    // Ten seconds after the last failure: the next one is free again.
    backoff.failed('a', 11_000);
    expect(backoff.waiting('a', 11_000)).toBe(0);
    backoff.failed('a', 11_000);
    expect(backoff.waiting('a', 11_000)).toBe(1000);
    backoff.forget('a');
    expect(backoff.waiting('a', 11_000)).toBe(0);
  });

  it('keeps accounts apart', () => {
    backoff.failed('a', 0);
    backoff.failed('a', 0);
    expect(backoff.waiting('b', 0)).toBe(0);
    expect(backoff.waiting('a', 0)).toBe(1000);
  });
});
