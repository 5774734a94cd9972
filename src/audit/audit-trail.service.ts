import { Injectable, OnModuleInit } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { storedUserAgent } from '../common/http/request-context';
import { EventOrigin } from '../events/domain-event.catalogue';
import { DomainEvents } from '../events/domain-events.service';
import { AuditEvent } from './audit-event.entity';
import { AuditRow, auditRowsOf, auditRowsOfSignal } from './audit-rows';

/**
 * The security audit trail: append-only (this service only inserts, and nothing in the service
 * updates or deletes these rows). It subscribes to the domain events and the security signals
 * inside the change's transaction, so there is never an event without its change or a change
 * without its event. The client's IP and user agent, and the administrator who acted, come
 * with the event (`origin`).
 */
@Injectable()
export class AuditTrail implements OnModuleInit {
  constructor(
    @InjectRepository(AuditEvent) private readonly events: Repository<AuditEvent>,
    private readonly bus: DomainEvents,
  ) {}

  onModuleInit(): void {
    this.bus.onTransaction((manager, event) =>
      this.write(manager, auditRowsOf(event), event.origin),
    );
    this.bus.onSignalInTransaction((manager, signal) =>
      this.write(manager, auditRowsOfSignal(signal), signal.origin),
    );
  }

  /** Oldest first: what happened to one account. */
  forUser(userId: string): Promise<AuditEvent[]> {
    return this.events.find({ where: { userId }, order: { createdAt: 'ASC' } });
  }

  private async write(
    manager: EntityManager,
    rows: AuditRow[],
    origin: EventOrigin | undefined,
  ): Promise<void> {
    for (const row of rows) {
      await manager.withRepository(this.events).insert({
        id: randomUUID(),
        type: row.type,
        userId: row.userId,
        actorId: origin?.actorId ?? null,
        ip: origin?.client?.ip ?? null,
        userAgent: storedUserAgent(origin?.client),
        sessionId: row.sessionId ?? null,
        createdAt: new Date(),
      });
    }
  }
}
