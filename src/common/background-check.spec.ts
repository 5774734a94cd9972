import { spawn } from 'node:child_process';
import { connect } from 'node:net';
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

  it('does not take a prompt answer for a late one when its own event loop stalled', async () => {
    // An echo server in a process of its own, on a connection opened beforehand: its answer is
    // in the socket long before this process's stall ends.
    const server = spawn(process.execPath, [
      '-e',
      "const s = require('net').createServer((c) => c.pipe(c)).listen(0, '127.0.0.1', () => console.log(s.address().port))",
    ]);
    const port = await new Promise<number>((resolve) =>
      server.stdout.once('data', (data: Buffer) => resolve(Number(String(data).trim()))),
    );
    const socket = connect(port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    const echo = () =>
      new Promise<boolean>((resolve) => {
        socket.once('data', () => resolve(true));
        socket.write('ping');
      });
    const changes: boolean[] = [];
    const check = new BackgroundCheck(echo, 60_000, 200, (up) => changes.push(up));
    try {
      check.start();
      // Synchronous work in this process (another app booting, a long GC), past the allowance.
      const until = Date.now() + 400;
      while (Date.now() < until) {
        // busy
      }
      expect(check.isUp).toBe(true);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(check.isUp).toBe(true);
      expect(changes).toEqual([]);
    } finally {
      check.stop();
      socket.destroy();
      server.kill();
    }
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
