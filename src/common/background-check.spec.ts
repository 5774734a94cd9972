import { BackgroundCheck } from './background-check';

describe('BackgroundCheck', () => {
  afterEach(() => jest.useRealTimers());

  it('reports the last answer, and a check running past its allowance as down at once', async () => {
    jest.useFakeTimers();
    let answer: (up: boolean) => void = () => undefined;
    const check = new BackgroundCheck(
      () => new Promise<boolean>((resolve) => (answer = resolve)),
      1000,
      500,
    );
    check.start();
    expect(check.isUp).toBe(true);
    jest.advanceTimersByTime(499);
    expect(check.isUp).toBe(true);
    jest.advanceTimersByTime(2);
    expect(check.isUp).toBe(false);
    // It answered, but too late: still down until a check answers in time.
    answer(true);
    await Promise.resolve();
    await Promise.resolve();
    expect(check.isUp).toBe(false);
    jest.advanceTimersByTime(1000);
    answer(true);
    await Promise.resolve();
    await Promise.resolve();
    expect(check.isUp).toBe(true);
    check.stop();
  });

  it('checks no more often than its interval, unless asked to check now, and never two at once', async () => {
    jest.useFakeTimers();
    let calls = 0;
    const check = new BackgroundCheck(
      () => {
        calls += 1;
        return Promise.resolve(false);
      },
      1000,
      500,
    );
    check.start();
    await Promise.resolve();
    await Promise.resolve();
    expect(calls).toBe(1);
    expect(check.isUp).toBe(false);
    jest.advanceTimersByTime(999);
    expect(calls).toBe(1);
    check.checkNow();
    expect(calls).toBe(2);
    check.checkNow();
    expect(calls).toBe(2);
    check.stop();
    check.checkNow();
    jest.advanceTimersByTime(5000);
    expect(calls).toBe(2);
  });

  it('tells of each change once, with the reason of an outage', async () => {
    jest.useFakeTimers();
    const answers = [false, false, false, true, true];
    const changes: Array<[boolean, string | undefined]> = [];
    const check = new BackgroundCheck(
      () => {
        const up = answers.shift() ?? true;
        return up ? Promise.resolve(true) : Promise.reject(new Error('connect ECONNREFUSED'));
      },
      1000,
      500,
      (up, reason) => changes.push([up, reason]),
    );
    check.start();
    for (let tick = 0; tick < 5; tick++) {
      for (let turn = 0; turn < 4; turn++) await Promise.resolve();
      jest.advanceTimersByTime(1000);
    }
    check.stop();
    expect(changes).toEqual([
      [false, 'connect ECONNREFUSED'],
      [true, undefined],
    ]);
  });
});
