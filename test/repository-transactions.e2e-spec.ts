import { getRepositoryToken } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { EntityManager, In, Repository } from 'typeorm';
import { AppException } from '../src/common/errors/app.exception';
import { Database } from '../src/database/database.service';
import { User } from '../src/users/user.entity';
import { UsersService } from '../src/users/users.service';
import { TestApp, startTestApp } from './support/test-app';

/** Leaves the transaction rolled back. */
class RolledBack extends Error {}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A team's code using TypeORM the Nest way (an injected repository, `dataSource.transaction`)
 * without Database's ceremony: on the embedded store, whose one connection every caller shares,
 * two requests' transactions interleaved in time still stay apart, and a plain read never sees
 * another's uncommitted row. On MariaDB each has a connection of its own.
 */
describe('transactions through the plain repository API', () => {
  let t: TestApp;
  let users: Repository<User>;
  let build: (tag: string) => User;

  beforeAll(async () => {
    t = await startTestApp();
    users = t.app.get<Repository<User>>(getRepositoryToken(User));
    const service = t.app.get(UsersService);
    build = (tag) => {
      const name = `${tag}${randomUUID().slice(0, 8)}`;
      return service.build({ email: `${name}@example.com`, username: name, passwordHash: null });
    };
  });
  afterAll(() => t.close());

  const idsOf = (rows: User[]) => rows.map((row) => row.id).sort();

  it('keeps two interleaved transactions apart: neither sees the other’s uncommitted write, the rolled-back one leaves nothing', async () => {
    const kept = build('kept');
    const dropped = build('dropped');
    const both = { id: In([kept.id, dropped.id]) };
    const seen: Record<string, string[]> = {};
    let plainReadOfDropped: User | null | undefined;

    // Each writes, hands the event loop over for a while, then reads what it can see.
    const keeping = t.dataSource.transaction(async (manager: EntityManager) => {
      await manager.getRepository(User).insert(kept);
      await pause(30);
      seen.kept = idsOf(await manager.getRepository(User).findBy(both));
    });
    const dropping = users.manager
      .transaction(async (manager: EntityManager) => {
        await manager.getRepository(User).insert(dropped);
        await pause(30);
        seen.dropped = idsOf(await manager.getRepository(User).findBy(both));
        throw new RolledBack();
      })
      .catch((error: unknown) => {
        if (!(error instanceof RolledBack)) throw error;
      });
    // A plain call while both may be open: never the row of a transaction still under way.
    await pause(10);
    const plain = users.findOneBy({ id: dropped.id }).then((row) => {
      plainReadOfDropped = row;
    });
    await Promise.all([keeping, dropping, plain]);

    // Never the other's uncommitted row (the kept one may have committed before the other read).
    expect(seen.kept).toEqual([kept.id]);
    expect(seen.dropped).toContain(dropped.id);
    expect(plainReadOfDropped).toBeNull();
    expect(idsOf(await users.findBy(both))).toEqual([kept.id]);
  });

  it('runs many plain calls and transactions at once without mixing them up', async () => {
    const rows = Array.from({ length: 20 }, (_, i) => build(`many${i}`));
    await Promise.all(
      rows.map((row, i) =>
        i % 2 === 0
          ? users.insert(row)
          : t.dataSource.transaction(async (manager: EntityManager) => {
              await manager.getRepository(User).insert(row);
              await pause(1);
              await manager.getRepository(User).update({ id: row.id }, { name: 'inside' });
            }),
      ),
    );
    const stored = await users.findBy({ id: In(rows.map((row) => row.id)) });
    expect(stored).toHaveLength(20);
    expect(stored.filter((row) => row.name === 'inside')).toHaveLength(10);
  });

  it('does not hang on a plain call made inside a unit of work: 503 at the deadline on the embedded store, its own connection on MariaDB', async () => {
    const row = build('nested');
    await users.insert(row);
    const started = Date.now();
    const nested = t.app
      .get(Database)
      .run(() => users.findOneBy({ id: row.id }))
      .then(
        (found) => found?.id,
        (error: unknown) => error,
      );
    const outcome = await nested;
    if (t.database.kind === 'mysql') {
      expect(outcome).toBe(row.id);
    } else {
      // DATABASE_TIMEOUT_MS's default, with the same allowance as the outage suites.
      expect(outcome).toBeInstanceOf(AppException);
      expect((outcome as AppException).code).toBe('SERVICE_UNAVAILABLE');
      expect(Date.now() - started).toBeLessThan(2000 + 500);
    }
    // And the store serves as before.
    expect((await users.findOneBy({ id: row.id }))?.id).toBe(row.id);
  });
});
