import { SlidingWindowStorage } from './sliding-window.storage';

describe('SlidingWindowStorage', () => {
  let now = 1_000_000;
  let storage: SlidingWindowStorage;
  beforeEach(() => {
    jest.spyOn(Date, 'now').mockImplementation(() => now);
    storage = new SlidingWindowStorage();
  });
  afterEach(() => {
    storage.onApplicationShutdown();
    jest.restoreAllMocks();
  });

  const hit = (key = 'auth:1.2.3.4') => storage.increment(key, 900_000, 5, 900_000, 'auth');

  it('allows `limit` hits in the window and blocks the next for blockDuration', async () => {
    for (let i = 1; i <= 5; i++) {
      expect(await hit()).toMatchObject({ totalHits: i, isBlocked: false });
      now += 1000;
    }
    expect(await hit()).toMatchObject({ isBlocked: true, timeToBlockExpire: 900 });
    now += 899_000;
    expect(await hit()).toMatchObject({ isBlocked: true, timeToBlockExpire: 1 });
    now += 1000;
    // The block is over and every earlier hit has left the window.
    expect(await hit()).toMatchObject({ totalHits: 1, isBlocked: false });
  });

  it('slides: a hit leaves the window ttl after it was made', async () => {
    for (let i = 0; i < 5; i++) {
      await hit();
      now += 100_000;
    }
    // Oldest hit was 500 s ago; 400 s on it has left, so one more fits.
    now += 400_000;
    expect(await hit()).toMatchObject({ totalHits: 5, isBlocked: false });
    expect(await hit()).toMatchObject({ isBlocked: true });
  });

  it('keeps keys apart and reports the time until the oldest hit expires', async () => {
    await hit('auth:a');
    now += 300_000;
    expect(await hit('auth:b')).toMatchObject({ totalHits: 1, timeToExpire: 900 });
    expect(await hit('auth:a')).toMatchObject({ totalHits: 2, timeToExpire: 600 });
  });

  it('without a block period, refuses while the window is full and frees up as hits age out', async () => {
    const noBlock = () => storage.increment('general:x', 10_000, 2, 0, 'general');
    expect(await noBlock()).toMatchObject({ isBlocked: false });
    now += 1000;
    expect(await noBlock()).toMatchObject({ isBlocked: false });
    for (let i = 0; i < 5; i++) {
      expect(await noBlock()).toMatchObject({ isBlocked: true, timeToBlockExpire: 9 });
    }
    now += 9000;
    expect(await noBlock()).toMatchObject({ isBlocked: false });
  });

  it('stays fast with a generous limit: 200 000 hits in one window', async () => {
    for (let i = 0; i < 200_000; i++) {
      await storage.increment('general:bench', 900_000, 10_000_000, 900_000, 'general');
      now += 1;
    }
    expect(
      await storage.increment('general:bench', 900_000, 10_000_000, 900_000, 'general'),
    ).toMatchObject({ totalHits: 200_001, isBlocked: false });
  });
});
