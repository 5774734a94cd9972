import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { Database } from '../database/database.service';
import { DomainEvent } from './domain-event.catalogue';

/** Runs inside the change's transaction: what it writes commits or rolls back with the change. */
export type TransactionalSubscriber = (manager: EntityManager, event: DomainEvent) => Promise<void>;

/** Runs once the change has committed; a failure is its own (logged), never the request's. */
export type CommittedSubscriber = (event: DomainEvent) => void | Promise<void>;

/**
 * The spine: the services that change state announce it here, inside their transaction, and
 * the side effects (the audit trail, the outbox of webhooks and mails, metrics, notices)
 * subscribe in their module's `onModuleInit`. A transactional subscriber that throws rolls the
 * change back, as the audit trail must (no change without its record).
 */
@Injectable()
export class DomainEvents {
  private readonly transactional: TransactionalSubscriber[] = [];
  private readonly committed: CommittedSubscriber[] = [];

  constructor(private readonly database: Database) {}

  onTransaction(subscriber: TransactionalSubscriber): void {
    this.transactional.push(subscriber);
  }

  onCommitted(subscriber: CommittedSubscriber): void {
    this.committed.push(subscriber);
  }

  /** `manager` must come from `Database.transaction()`: the event is part of that change. */
  async publish(manager: EntityManager, event: DomainEvent): Promise<void> {
    for (const subscriber of this.transactional) await subscriber(manager, event);
    if (this.committed.length === 0) return;
    this.database.afterCommit(manager, () => this.announce(event));
  }

  private async announce(event: DomainEvent): Promise<void> {
    for (const subscriber of this.committed) await subscriber(event);
  }
}
