import { UserCache } from './user-cache';
import { User } from './user.entity';

const user = (tokenVersion: number) => Object.assign(new User(), { id: 'user_1', tokenVersion });

describe('UserCache', () => {
  it('serves a warm entry without loading, until it expires', async () => {
    const cache = new UserCache(1000);
    const load = jest.fn(() => Promise.resolve(user(0)));
    await cache.getOrLoad('user_1', load);
    await cache.getOrLoad('user_1', load);
    expect(load).toHaveBeenCalledTimes(1);
    expect(cache.get('user_1', '', Date.now() + 1001)).toBeUndefined();
  });

  it('does not keep a read that raced an invalidation (the logout committed meanwhile)', async () => {
    const cache = new UserCache(60_000);
    let finish!: (value: User) => void;
    const inFlight = cache.getOrLoad(
      'user_1',
      () => new Promise<User>((resolve) => (finish = resolve)),
    );
    cache.invalidate('user_1');
    finish(user(0));
    expect((await inFlight)?.tokenVersion).toBe(0);
    // The stale copy was not stored: the next check reads the new version.
    const next = await cache.getOrLoad('user_1', () => Promise.resolve(user(1)));
    expect(next?.tokenVersion).toBe(1);
  });

  it('serves an entry only under the stamp it was loaded with (a change anywhere since: reload)', async () => {
    const cache = new UserCache(60_000);
    await cache.getOrLoad('user_1', () => Promise.resolve(user(0)), 'epoch/g0');
    expect(cache.get('user_1', 'epoch/g0')?.tokenVersion).toBe(0);

    const load = jest.fn(() => Promise.resolve(user(1)));
    expect((await cache.getOrLoad('user_1', load, 'epoch/g1'))?.tokenVersion).toBe(1);
    expect(load).toHaveBeenCalledTimes(1);
    // The entry now belongs to g1; a check still presenting g0 (read before the change) is not
    // served from it either.
    expect(cache.get('user_1', 'epoch/g1')?.tokenVersion).toBe(1);
    expect(cache.get('user_1', 'epoch/g0')).toBeUndefined();
  });

  it('keeps a load that raced a change under the stamp read before it, so it is never current', async () => {
    const cache = new UserCache(60_000);
    let finish!: (value: User) => void;
    // Generation g0 read, then the database read is slow; meanwhile the change commits and
    // writes g1 elsewhere (no local invalidation on this instance).
    const inFlight = cache.getOrLoad(
      'user_1',
      () => new Promise<User>((resolve) => (finish = resolve)),
      'epoch/g0',
    );
    finish(user(0));
    await inFlight;
    const load = jest.fn(() => Promise.resolve(user(1)));
    expect((await cache.getOrLoad('user_1', load, 'epoch/g1'))?.tokenVersion).toBe(1);
    expect(load).toHaveBeenCalledTimes(1);
  });

  it('is off with a TTL of 0 and bounded in size', async () => {
    const off = new UserCache(0);
    const load = jest.fn(() => Promise.resolve(user(0)));
    await off.getOrLoad('user_1', load);
    await off.getOrLoad('user_1', load);
    expect(load).toHaveBeenCalledTimes(2);

    const small = new UserCache(60_000, 2);
    for (const id of ['a', 'b', 'c']) {
      await small.getOrLoad(id, () =>
        Promise.resolve(Object.assign(new User(), { id, tokenVersion: 0 })),
      );
    }
    expect(small.get('a')).toBeUndefined();
    expect(small.get('c')).toBeDefined();
  });

  describe('with the user’s live sessions (access-token checks)', () => {
    const withSessions = (...sessions: string[]) =>
      Promise.resolve({ user: user(0), sessions: new Set(sessions) });

    it('serves a current entry that names the session, without loading', async () => {
      const cache = new UserCache(60_000);
      const load = jest.fn(() => withSessions('s1', 's2'));
      await cache.getOrLoadWithSessions('user_1', 's1', load, 'g0');
      const again = await cache.getOrLoadWithSessions('user_1', 's2', load, 'g0');
      expect(load).toHaveBeenCalledTimes(1);
      expect([...again!.sessions]).toEqual(['s1', 's2']);
    });

    it('loads again for a session the copy does not name (a login since), and keeps the new copy', async () => {
      const cache = new UserCache(60_000);
      await cache.getOrLoadWithSessions('user_1', 's1', () => withSessions('s1'), 'g0');
      const load = jest.fn(() => withSessions('s1', 's3'));
      expect((await cache.getOrLoadWithSessions('user_1', 's3', load, 'g0'))?.sessions).toEqual(
        new Set(['s1', 's3']),
      );
      await cache.getOrLoadWithSessions('user_1', 's3', load, 'g0');
      expect(load).toHaveBeenCalledTimes(1);
    });

    it('keeps the sessions it knew beside the one a load found, so two devices do not take turns', async () => {
      const cache = new UserCache(60_000);
      await cache.getOrLoadWithSessions('user_1', 's1', () => withSessions('s1'), 'g0');
      await cache.getOrLoadWithSessions('user_1', 's2', () => withSessions('s2'), 'g0');
      const load = jest.fn(() => withSessions('s1'));

      await cache.getOrLoadWithSessions('user_1', 's1', load, 'g0');
      await cache.getOrLoadWithSessions('user_1', 's2', load, 'g0');

      expect(load).not.toHaveBeenCalled();
    });

    it('never serves a copy loaded under another stamp (a session ended anywhere since)', async () => {
      const cache = new UserCache(60_000);
      await cache.getOrLoadWithSessions('user_1', 's1', () => withSessions('s1', 's2'), 'g0');
      const load = jest.fn(() => withSessions('s1'));
      const found = await cache.getOrLoadWithSessions('user_1', 's2', load, 'g1');
      expect(load).toHaveBeenCalledTimes(1);
      expect(found?.sessions.has('s2')).toBe(false);
    });

    it('does not keep a load that raced an invalidation', async () => {
      const cache = new UserCache(60_000);
      let finish!: (value: { user: User; sessions: Set<string> }) => void;
      const inFlight = cache.getOrLoadWithSessions(
        'user_1',
        's1',
        () => new Promise((resolve) => (finish = resolve)),
      );
      cache.invalidate('user_1');
      finish({ user: user(0), sessions: new Set(['s1', 's2']) });
      await inFlight;
      const load = jest.fn(() => withSessions('s1'));
      await cache.getOrLoadWithSessions('user_1', 's2', load);
      expect(load).toHaveBeenCalledTimes(1);
    });

    it('loads with sessions even where a plain user entry is current (a refresh filled it)', async () => {
      const cache = new UserCache(60_000);
      await cache.getOrLoad('user_1', () => Promise.resolve(user(0)), 'g0');
      const load = jest.fn(() => withSessions('s1'));
      await cache.getOrLoadWithSessions('user_1', 's1', load, 'g0');
      expect(load).toHaveBeenCalledTimes(1);
      // And the plain lookup is served from the fuller entry.
      expect(cache.get('user_1', 'g0')?.tokenVersion).toBe(0);
    });
  });
});
