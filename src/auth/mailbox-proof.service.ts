import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { DomainEvents } from '../events/domain-events.service';
import { ClientInfo } from '../common/http/request-context';

/**
 * The first proof of an account's mailbox (a reset that sets a password, the verification link,
 * a mailed sign-in code), announced as `mailbox.first_proven` inside the proof's transaction. An
 * identity provider may create an account with an address it does not vouch for, so whoever
 * claimed the address first may have linked their own identity: the linked identities'
 * module hears the signal and undoes those links, and the sessions with them, in that transaction.
 */
@Injectable()
export class MailboxProof {
  constructor(private readonly events: DomainEvents) {}

  /**
   * Inside the proof's transaction, before the address is marked verified; `wasVerified` as
   * read in that transaction. What the signal sets off ends sessions before the user row is
   * written, the lock order every caller keeps.
   */
  async proven(
    manager: EntityManager,
    userId: string,
    wasVerified: boolean,
    client: ClientInfo | undefined,
  ): Promise<void> {
    if (wasVerified) return;
    await this.events.signal(manager, {
      type: 'mailbox.first_proven',
      userId,
      origin: { client },
    });
  }
}
