import { Injectable, OnModuleInit } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { Database } from '../database/database.service';
import { DomainEvent } from '../events/domain-event.catalogue';
import { DomainEvents } from '../events/domain-events.service';
import { webhookBody } from './webhook-body';
import { WebhookDelivery } from './webhook-delivery.entity';
import { WebhookDispatcher } from './webhook-dispatcher.service';
import { newId } from './webhook-ids';

/** An endpoint's `events`: a list of names, or `["*"]` for every event but another's test. */
export function subscribes(events: readonly string[], type: string): boolean {
  return events.includes('*') || events.includes(type);
}

/**
 * The outbox's writing half: inside the transaction of every change, one delivery per enabled
 * endpoint that subscribes to the event, so a change that rolls back leaves none and one that
 * commits has all of them, whatever happens to the process after the commit. The test event goes
 * to its own endpoint only. Once committed, this instance's workers are woken.
 */
@Injectable()
export class WebhookOutbox implements OnModuleInit {
  constructor(
    private readonly events: DomainEvents,
    private readonly database: Database,
    private readonly dispatcher: WebhookDispatcher,
    @InjectRepository(WebhookDelivery) private readonly deliveries: Repository<WebhookDelivery>,
  ) {}

  onModuleInit(): void {
    this.events.onTransaction((manager, event) => this.store(manager, event));
  }

  private async store(manager: EntityManager, event: DomainEvent): Promise<void> {
    const endpoints = await this.endpointsFor(manager, event);
    if (endpoints.length === 0) return;
    const now = new Date();
    const eventId = newId('evt');
    const body = webhookBody(event, now);
    await manager.withRepository(this.deliveries).insert(
      endpoints.map((webhookId) => ({
        id: newId('msg'),
        webhookId,
        eventId,
        type: event.type,
        body,
        status: 'pending' as const,
        attempts: 0,
        nextAttemptAt: now,
        claim: null,
        lastStatusCode: null,
        lastError: null,
        createdAt: now,
        finishedAt: null,
      })),
    );
    this.database.afterCommit(manager, () => this.dispatcher.wake());
  }

  private async endpointsFor(manager: EntityManager, event: DomainEvent): Promise<string[]> {
    if (event.type === 'webhook.test') return [event.data.webhookId];
    // Plain SQL: this runs in every transaction that publishes, most often with no endpoint.
    const rows: Array<{ id: string; events: string }> = await manager.query(
      'SELECT id, events FROM webhooks WHERE enabled = 1',
    );
    return rows
      .filter((row) => subscribes(JSON.parse(row.events) as string[], event.type))
      .map((row) => row.id);
  }
}
