import { Injectable, OnModuleInit } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { EventOrigin } from '../events/domain-event.catalogue';
import { DomainEvents } from '../events/domain-events.service';
import { SessionsService } from '../sessions/sessions.service';
import { LinkedIdentitiesService } from './linked-identities.service';

/**
 * What a mailbox's first proof undoes (the core's `mailbox.first_proven`, heard inside the
 * proof's transaction). Every identity linked while the address was unproven goes: which was
 * the owner's cannot be told, and the owner links theirs again once signed in. The sessions go
 * with them, as those identities may have begun them.
 */
@Injectable()
export class UnprovenIdentities implements OnModuleInit {
  constructor(
    private readonly events: DomainEvents,
    private readonly identities: LinkedIdentitiesService,
    private readonly sessions: SessionsService,
  ) {}

  onModuleInit(): void {
    this.events.onSignalInTransaction(async (manager, signal) => {
      if (signal.type !== 'mailbox.first_proven' || signal.userId === null) return;
      await this.unlink(manager, signal.userId, signal.origin);
    });
  }

  private async unlink(
    manager: EntityManager,
    userId: string,
    origin: EventOrigin | undefined,
  ): Promise<void> {
    const unlinked = await this.identities.removeAll(manager, userId);
    if (unlinked === 0) return;
    const ended = await this.sessions.endAll(userId, manager);
    await this.events.publish(manager, {
      type: 'session.revoked',
      data: { userId, sessions: ended.map((id) => ({ id })), reason: 'identities_unlinked' },
      origin,
    });
  }
}
