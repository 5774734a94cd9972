import { Injectable, Logger } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { Database } from '../database/database.service';
import { DomainEvent, SecuritySignal } from './domain-event.catalogue';

/** Runs inside the change's transaction: what it writes commits or rolls back with the change. */
export type TransactionalSubscriber = (manager: EntityManager, event: DomainEvent) => Promise<void>;

/** Runs once the change has committed; a failure is its own (logged), never the request's. */
export type CommittedSubscriber = (event: DomainEvent) => void | Promise<void>;

/** The same two phases for the security signals (never delivered to webhooks). */
export type TransactionalSignalSubscriber = (
  manager: EntityManager,
  signal: SecuritySignal,
) => Promise<void>;
export type CommittedSignalSubscriber = (signal: SecuritySignal) => void | Promise<void>;

/**
 * The spine: the services that change state announce it here, inside their transaction, and
 * the side effects (the audit trail, the outbox of webhooks and mails, metrics, notices)
 * subscribe in their module's `onModuleInit`. A transactional subscriber that throws rolls the
 * change back, as the audit trail must (no change without its record). The security signals
 * (a failed attempt, a code mailed) travel apart, to their own subscribers.
 */
@Injectable()
export class DomainEvents {
  private readonly logger = new Logger(DomainEvents.name);
  private readonly transactional: TransactionalSubscriber[] = [];
  private readonly committed: CommittedSubscriber[] = [];
  private readonly signalsInTransaction: TransactionalSignalSubscriber[] = [];
  private readonly signalsCommitted: CommittedSignalSubscriber[] = [];

  constructor(private readonly database: Database) {}

  onTransaction(subscriber: TransactionalSubscriber): void {
    this.transactional.push(subscriber);
  }

  onCommitted(subscriber: CommittedSubscriber): void {
    this.committed.push(subscriber);
  }

  onSignalInTransaction(subscriber: TransactionalSignalSubscriber): void {
    this.signalsInTransaction.push(subscriber);
  }

  onSignalCommitted(subscriber: CommittedSignalSubscriber): void {
    this.signalsCommitted.push(subscriber);
  }

  /** `manager` must come from `Database.transaction()`: the event is part of that change. */
  async publish(manager: EntityManager, event: DomainEvent): Promise<void> {
    for (const subscriber of this.transactional) await subscriber(manager, event);
    if (this.committed.length === 0) return;
    this.database.afterCommit(manager, () => this.announce(this.committed, event, event.type));
  }

  /** A signal that is part of a change (written with it, or not at all). */
  async signal(manager: EntityManager, signal: SecuritySignal): Promise<void> {
    for (const subscriber of this.signalsInTransaction) await subscriber(manager, signal);
    if (this.signalsCommitted.length === 0) return;
    this.database.afterCommit(manager, () =>
      this.announce(this.signalsCommitted, signal, signal.type),
    );
  }

  /** A signal with no change of its own to go with (a failed login): its own transaction. */
  signalAlone(signal: SecuritySignal): Promise<void> {
    return this.database.transaction((manager) => this.signal(manager, signal));
  }

  private async announce<T>(
    subscribers: Array<(item: T) => void | Promise<void>>,
    item: T,
    type: string,
  ): Promise<void> {
    for (const subscriber of subscribers) {
      try {
        await subscriber(item);
      } catch (error) {
        this.logger.error({
          msg: `A subscriber to ${type} failed after the commit (${
            error instanceof Error ? (error.stack ?? error.message) : String(error)
          })`,
        });
      }
    }
  }
}
