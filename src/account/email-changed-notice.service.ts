import { Injectable, OnModuleInit } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { MailConfig } from '../config/config.sections';
import { DomainEvent } from '../events/domain-event.catalogue';
import { DomainEvents } from '../events/domain-events.service';
import { MailQueue } from '../mail/mail-queue.service';
import { VerificationTokensService } from '../tokens/verification-tokens.service';

/**
 * The notice to the old address once an email change is confirmed, with a link that undoes it
 * (EmailChangeUndoService). The link is issued inside the change's transaction, and the notice
 * queued with it (MailQueue): there is no change without its way back, and the mail is retried
 * while SMTP refuses, until the link expires. The change stands whether or not it goes out.
 */
@Injectable()
export class EmailChangedNotice implements OnModuleInit {
  constructor(
    private readonly events: DomainEvents,
    private readonly tokens: VerificationTokensService,
    private readonly queue: MailQueue,
    private readonly mailConfig: MailConfig,
  ) {}

  onModuleInit(): void {
    this.events.onTransaction((manager, event) => this.prepare(manager, event));
  }

  private async prepare(manager: EntityManager, event: DomainEvent): Promise<void> {
    if (event.type !== 'user.email_changed' || event.data.undone) return;
    const { user, previousEmail } = event.data;
    const ttl = this.mailConfig.emailChangeTtl;
    // Not retired by a later password change or reset: whoever made the change can do those.
    const token = await this.tokens.issue(
      manager,
      user.id,
      'email_change_undo',
      ttl,
      previousEmail,
    );
    const message = {
      to: previousEmail,
      username: user.username,
      at: user.updatedAt,
      ip: event.origin?.client?.ip,
      newEmail: user.email,
      undo: { token, ttl },
    };
    const expiresAt = new Date(Date.now() + ttl * 1000);
    await this.queue.queueAndSend(manager, { kind: 'email-changed', message }, expiresAt);
  }
}
