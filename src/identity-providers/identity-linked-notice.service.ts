import { Injectable, OnModuleInit } from '@nestjs/common';
import { DomainEventOf } from '../events/domain-event.catalogue';
import { DomainEvents } from '../events/domain-events.service';
import { AfterAnswer } from '../mail/after-answer.service';
import { MailQueue } from '../mail/mail-queue.service';
import { Database } from '../database/database.service';
import { EntityManager } from 'typeorm';
import { ProviderClients } from './provider-clients.service';

/**
 * Tells the owner of an account an identity was linked to, at its address: a new way into the
 * account they did not add is how a stolen session shows. Not for the identity whose first
 * sign-in made the account. Queued in the link's transaction (MailQueue), first tried after the
 * answer, retried while SMTP refuses; the link stands whatever becomes of the mail.
 */
@Injectable()
export class IdentityLinkedNotice implements OnModuleInit {
  constructor(
    private readonly events: DomainEvents,
    private readonly database: Database,
    private readonly queue: MailQueue,
    private readonly afterAnswer: AfterAnswer,
    private readonly providers: ProviderClients,
  ) {}

  onModuleInit(): void {
    this.events.onTransaction(async (manager, event) => {
      if (event.type === 'identity.linked' && !event.data.accountCreated) {
        await this.store(manager, event);
      }
    });
  }

  private async store(
    manager: EntityManager,
    { data, origin }: DomainEventOf<'identity.linked'>,
  ): Promise<void> {
    const { provider } = this.providers.get(data.identity.provider);
    const client = origin?.client;
    const message = {
      to: data.user.email,
      username: data.user.username,
      at: new Date(),
      ip: client?.ip,
      providerName: provider.name,
    };
    const id = await this.queue.queue(manager, { kind: 'identity-linked', message });
    this.database.afterCommit(manager, () =>
      this.afterAnswer.run('An identity-linked notice', client, async () => {
        await this.queue.attempt(id);
      }),
    );
  }
}
