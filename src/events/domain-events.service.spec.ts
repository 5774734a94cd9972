import { Logger } from '@nestjs/common';
import { Column, DataSource, Entity, EntityManager, PrimaryColumn } from 'typeorm';
import { DatabaseConfig } from '../config/config.sections';
import { Database } from '../database/database.service';
import { User } from '../users/user.entity';
import { DomainEvent } from './domain-event.catalogue';
import { DomainEvents } from './domain-events.service';

/** A change of state the tests make, in an embedded store of their own. */
@Entity({ name: 'changes' })
class Change {
  @PrimaryColumn({ type: 'varchar', length: 20 })
  id!: string;

  @Column({ type: 'varchar', length: 20 })
  by!: string;
}

const created = (id: string): DomainEvent => ({
  type: 'user.created',
  data: { user: { id } as User, method: 'password' },
});

describe('DomainEvents', () => {
  let dataSource: DataSource;
  let database: Database;
  let events: DomainEvents;

  beforeEach(async () => {
    dataSource = new DataSource({
      type: 'better-sqlite3',
      database: ':memory:',
      entities: [Change],
      synchronize: true,
    });
    await dataSource.initialize();
    database = new Database(dataSource, {
      timeoutMs: 5000,
      url: 'sqlite::memory:',
    } as DatabaseConfig);
    events = new DomainEvents(database);
  });
  afterEach(() => dataSource.destroy());

  const stored = () => database.run((manager) => manager.count(Change));
  const change = (id: string, event: DomainEvent) =>
    database.transaction(async (manager: EntityManager) => {
      await manager.insert(Change, { id, by: 'change' });
      await events.publish(manager, event);
    });

  it('writes what a transactional subscriber writes with the change', async () => {
    events.onTransaction((manager, event) =>
      manager.insert(Change, { id: `audit-${event.type}`, by: 'subscriber' }).then(() => {}),
    );
    await change('one', created('u1'));
    expect(await stored()).toBe(2);
  });

  it('rolls the change back when a transactional subscriber throws, and announces nothing', async () => {
    const announced: DomainEvent[] = [];
    events.onTransaction(() => Promise.reject(new Error('no record, no change')));
    events.onCommitted((event) => void announced.push(event));
    await expect(change('one', created('u1'))).rejects.toThrow('no record, no change');
    expect(await stored()).toBe(0);
    expect(announced).toEqual([]);
  });

  it('runs committed subscribers only once the change has committed', async () => {
    const seen: Array<{ type: string; storedThen: number }> = [];
    events.onCommitted(async (event) => {
      seen.push({ type: event.type, storedThen: await stored() });
    });
    let during = -1;
    await database.transaction(async (manager) => {
      await manager.insert(Change, { id: 'one', by: 'change' });
      await events.publish(manager, created('u1'));
      during = seen.length;
    });
    expect(during).toBe(0);
    // Read through another unit of work: the change was visible to it, so it had committed.
    expect(seen).toEqual([{ type: 'user.created', storedThen: 1 }]);
  });

  it('never runs committed subscribers for a change that rolled back later on', async () => {
    const announced: DomainEvent[] = [];
    events.onCommitted((event) => void announced.push(event));
    await expect(
      database.transaction(async (manager) => {
        await events.publish(manager, created('u1'));
        throw new Error('the change failed after its event');
      }),
    ).rejects.toThrow('the change failed after its event');
    expect(announced).toEqual([]);
  });

  it('keeps a committed subscriber’s failure its own: the change stands, the others run', async () => {
    const logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    const announced: string[] = [];
    events.onCommitted(() => Promise.reject(new Error('mail down')));
    events.onCommitted((event) => void announced.push(event.type));
    await expect(change('one', created('u1'))).resolves.toBeUndefined();
    expect(await stored()).toBe(1);
    expect(announced).toEqual(['user.created']);
    expect(logged).toHaveBeenCalledTimes(1);
    logged.mockRestore();
  });

  it('carries security signals to their own subscribers only, alone in a transaction of theirs', async () => {
    const changes: string[] = [];
    const signals: string[] = [];
    const committedSignals: string[] = [];
    events.onTransaction((_manager, event) => Promise.resolve(void changes.push(event.type)));
    events.onSignalInTransaction((manager, signal) =>
      manager.insert(Change, { id: signal.type, by: signal.userId ?? '' }).then(() => {
        signals.push(signal.type);
      }),
    );
    events.onSignalCommitted((signal) => void committedSignals.push(signal.type));
    await events.signalAlone({ type: 'login.failed', userId: null });
    expect(changes).toEqual([]);
    expect(signals).toEqual(['login.failed']);
    expect(committedSignals).toEqual(['login.failed']);
    expect(await stored()).toBe(1);
  });
});
