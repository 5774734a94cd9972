import { performance } from 'node:perf_hooks';
import { EntityManager } from 'typeorm';
import { Database } from './database.service';
import { BatchPacer, inPacedBatches } from './paced-batches';

/** A Database that runs each unit at once, as the embedded store or MySQL would schedule it. */
function fakeDatabase(holdsEventLoop: boolean): Database {
  return {
    holdsEventLoop,
    run: <T>(work: (manager: EntityManager) => Promise<T>) => work({} as EntityManager),
  } as unknown as Database;
}

describe('BatchPacer', () => {
  it('on the embedded store, grows a quick batch (at most twofold) and shrinks a slow one (at most fourfold)', () => {
    const pacer = new BatchPacer(true);
    const first = pacer.size;
    pacer.took(0.1);
    expect(pacer.size).toBe(first * 2);
    pacer.took(1000);
    expect(pacer.size).toBe(first / 2);
    // Near the target, in proportion.
    const before = pacer.size;
    pacer.took(8);
    expect(pacer.size).toBe(Math.floor(before / 2));
    for (let i = 0; i < 50; i++) pacer.took(1000);
    expect(pacer.size).toBe(1);
  });

  it('on MySQL keeps one size whatever the time (its driver hands the loop back)', () => {
    const pacer = new BatchPacer(false);
    const size = pacer.size;
    pacer.took(1000);
    pacer.took(0.01);
    expect(pacer.size).toBe(size);
  });
});

describe('inPacedBatches', () => {
  it('hands the loop back between batches on the embedded store: a timer runs before it ends', async () => {
    let remaining = 5_000;
    let batches = 0;
    let timerRanAfterBatches: number | undefined;
    const run = inPacedBatches(fakeDatabase(true), async (_manager, size) => {
      batches += 1;
      // Each batch holds the loop as a real one would: an instant one could end them all before
      // the timer's first millisecond, and the test would prove nothing (and fail by chance).
      const until = performance.now() + 3;
      while (performance.now() < until);
      const taken = Math.min(size, remaining);
      remaining -= taken;
      return Promise.resolve(taken);
    });
    setTimeout(() => (timerRanAfterBatches = batches), 0);

    expect(await run).toBe(5_000);
    expect(timerRanAfterBatches).toBeDefined();
    expect(timerRanAfterBatches).toBeLessThan(batches);
  });

  it('stops at the first batch that handles fewer rows than asked', async () => {
    const sizes: number[] = [];
    const handled = await inPacedBatches(fakeDatabase(false), async (_manager, size) => {
      sizes.push(size);
      return Promise.resolve(sizes.length < 3 ? size : size - 1);
    });
    expect(sizes).toHaveLength(3);
    expect(handled).toBe(sizes[0] * 3 - 1);
  });
});
