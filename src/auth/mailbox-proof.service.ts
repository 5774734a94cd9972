import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { DomainEvents } from '../events/domain-events.service';
import { ClientInfo } from '../common/http/request-context';
import { LinkedIdentitiesService } from '../linked-identities/linked-identities.service';
import { SessionsService } from '../sessions/sessions.service';

/**
 * What the first proof of an account's mailbox (a reset that sets a password, the verification
 * link, a mailed sign-in code) undoes. An identity provider may create an account with an address
 * it does not vouch for (Entra never says email_verified), so whoever claimed the address first
 * may have linked their own identity; left linked, it would sign them back in after the owner
 * took the account over by mail. Every identity of an account still unverified at the proof goes:
 * which of them was the owner's cannot be told, and the owner links theirs again once signed in.
 * The sessions go with them, as those identities may have begun them.
 */
@Injectable()
export class MailboxProof {
  constructor(
    private readonly identities: LinkedIdentitiesService,
    private readonly sessions: SessionsService,
    private readonly events: DomainEvents,
  ) {}

  /**
   * Inside the proof's transaction, before the address is marked verified; `wasVerified` as
   * read in that transaction. Sessions are ended before the user row is written, the lock
   * order every caller keeps.
   */
  async proven(
    manager: EntityManager,
    userId: string,
    wasVerified: boolean,
    client: ClientInfo | undefined,
  ): Promise<void> {
    if (wasVerified) return;
    const unlinked = await this.identities.removeAll(manager, userId);
    if (unlinked === 0) return;
    const ended = await this.sessions.endAll(userId, manager);
    await this.events.publish(manager, {
      type: 'session.revoked',
      data: { userId, sessions: ended.map((id) => ({ id })), reason: 'identities_unlinked' },
      origin: { client },
    });
  }
}
