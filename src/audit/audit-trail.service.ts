import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { ClientInfo, storedUserAgent } from '../common/http/request-context';
import { Database } from '../database/database.service';
import { Metrics } from '../metrics/metrics.service';
import { AuditEvent, AuditEventType } from './audit-event.entity';

/**
 * The security audit trail: append-only (this service only inserts, and nothing in the service
 * updates or deletes these rows), each event written in the same transaction as the change it
 * records, so there is never an event without its change or a change without its event. The
 * client's IP and user agent come from the controller (`@Client()`).
 */
@Injectable()
export class AuditTrail {
  constructor(
    @InjectRepository(AuditEvent) private readonly events: Repository<AuditEvent>,
    private readonly database: Database,
    private readonly metrics: Metrics,
  ) {}

  /**
   * Inside the caller's transaction; counted in the metrics once it has committed. `actorId` is
   * the administrator acting on `userId`'s account (null when the user acted, or the operator's
   * command did); `sessionId` the session (refresh-token family) the event ended, if it ended one.
   */
  async record(
    manager: EntityManager,
    type: AuditEventType,
    userId: string | null,
    client: ClientInfo | undefined,
    links: { actorId?: string | null; sessionId?: string | null } = {},
  ): Promise<void> {
    await manager.withRepository(this.events).insert({
      ...this.event(type, userId, client, links.actorId ?? null),
      sessionId: links.sessionId ?? null,
    });
    this.database.afterCommit(manager, () => this.count(type));
  }

  /** An event with no change of its own to go with (a failed login). */
  async recordAlone(
    type: AuditEventType,
    userId: string | null,
    client: ClientInfo | undefined,
  ): Promise<void> {
    const event = this.event(type, userId, client);
    await this.database.run((manager) => manager.withRepository(this.events).insert(event));
    this.count(type);
  }

  /** Oldest first: what happened to one account. */
  forUser(userId: string): Promise<AuditEvent[]> {
    return this.database.run((manager) =>
      manager.withRepository(this.events).find({ where: { userId }, order: { createdAt: 'ASC' } }),
    );
  }

  private count(type: AuditEventType): void {
    switch (type) {
      case 'registered':
        return this.metrics.registered();
      case 'login_succeeded':
        return this.metrics.login('ok');
      case 'login_failed':
        return this.metrics.login('failed');
      case 'logout':
        return this.metrics.revoked('logout');
      case 'session_ended':
        return this.metrics.revoked('session_ended');
      case 'password_changed':
        return this.metrics.revoked('password_reset');
      case 'refresh_reuse_detected':
        return this.metrics.revoked('refresh_reuse');
      // An administrator ended them: every session of the account, once per action.
      case 'sessions_ended':
        return this.metrics.revoked('admin');
      case 'account_disabled':
        return this.metrics.revoked('account_disabled');
      case 'account_deleted':
        return this.metrics.revoked('account_deleted');
    }
  }

  private event(
    type: AuditEventType,
    userId: string | null,
    client: ClientInfo | undefined,
    actorId: string | null = null,
  ): AuditEvent {
    return {
      id: randomUUID(),
      type,
      userId,
      actorId,
      ip: client?.ip ?? null,
      userAgent: storedUserAgent(client),
      sessionId: null,
      createdAt: new Date(),
    };
  }
}
