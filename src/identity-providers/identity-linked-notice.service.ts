import { Injectable, OnModuleInit } from '@nestjs/common';
import { DomainEventOf } from '../events/domain-event.catalogue';
import { DomainEvents } from '../events/domain-events.service';
import { AfterAnswer } from '../mail/after-answer.service';
import { MailService } from '../mail/mail.service';
import { ProviderClients } from './provider-clients.service';

/**
 * Tells the owner of an account an identity was linked to, at its address, after the answer: a
 * new way into the account they did not add is how a stolen session shows. Not for the identity
 * whose first sign-in made the account. A mail that fails is logged, the link stands.
 */
@Injectable()
export class IdentityLinkedNotice implements OnModuleInit {
  constructor(
    private readonly events: DomainEvents,
    private readonly mail: MailService,
    private readonly afterAnswer: AfterAnswer,
    private readonly providers: ProviderClients,
  ) {}

  onModuleInit(): void {
    this.events.onCommitted((event) => {
      if (event.type === 'identity.linked' && !event.data.accountCreated) this.send(event);
    });
  }

  private send({ data, origin }: DomainEventOf<'identity.linked'>): void {
    const { provider } = this.providers.get(data.identity.provider);
    const client = origin?.client;
    this.afterAnswer.run('An identity-linked notice', client, () =>
      this.mail.sendIdentityLinkedNotice({
        to: data.user.email,
        username: data.user.username,
        at: new Date(),
        ip: client?.ip,
        providerName: provider.name,
      }),
    );
  }
}
