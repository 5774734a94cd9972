import { Injectable, Module, OnModuleInit } from '@nestjs/common';
import { DomainEvent, SecuritySignal } from '../../src/events/domain-event.catalogue';
import { DomainEvents } from '../../src/events/domain-events.service';
import { EventsModule } from '../../src/events/events.module';

/**
 * A team's subscriber, for tests: what the bus announced, in order, with the phase it ran in
 * (`transaction` inside the change's transaction, `committed` once it has committed).
 */
@Injectable()
export class RecordedEvents implements OnModuleInit {
  readonly seen: Array<{ phase: 'transaction' | 'committed'; event: DomainEvent }> = [];
  readonly signals: SecuritySignal[] = [];

  constructor(private readonly bus: DomainEvents) {}

  onModuleInit(): void {
    this.bus.onTransaction((_manager, event) => {
      this.seen.push({ phase: 'transaction', event });
      return Promise.resolve();
    });
    this.bus.onCommitted((event) => void this.seen.push({ phase: 'committed', event }));
    this.bus.onSignalCommitted((signal) => void this.signals.push(signal));
  }

  /** The committed events about one user, oldest first. */
  of(userId: string): DomainEvent[] {
    return this.seen
      .filter(({ phase }) => phase === 'committed')
      .map(({ event }) => event)
      .filter((event) => concerns(event, userId));
  }
}

function concerns(event: DomainEvent, userId: string): boolean {
  const data = event.data as { user?: { id: string }; userId?: string };
  return data.user?.id === userId || data.userId === userId;
}

@Module({ imports: [EventsModule], providers: [RecordedEvents] })
export class RecordedEventsModule {}
