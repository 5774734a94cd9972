import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { ClientInfo } from '../common/http/request-context';
import { DomainEvent } from '../events/domain-event.catalogue';
import { DomainEvents } from '../events/domain-events.service';
import { User } from '../users/user.entity';
import { MailQueue } from './mail-queue.service';
import { MailDeliveryError, MailService } from './mail.service';

/**
 * The notices to an account's owner after a change to how they sign in: queued in the change's
 * transaction (MailQueue), first tried once it has committed and before the answer, retried on
 * MAIL_RETRY_SCHEDULE while SMTP refuses. The change stands whether or not a notice goes out.
 */
@Injectable()
export class NoticeMails implements OnModuleInit {
  private readonly logger = new Logger(NoticeMails.name);

  constructor(
    private readonly bus: DomainEvents,
    private readonly queue: MailQueue,
    private readonly mail: MailService,
  ) {}

  onModuleInit(): void {
    this.bus.onTransaction((manager, event) => this.store(manager, event));
    // A recovery code is a way in spent: the owner hears of each, at once (it has no event).
    this.bus.onSignalCommitted(async (signal) => {
      if (signal.type === 'mfa.recovery_code_used' && signal.user) {
        await this.recoveryCodeUsed(signal.user, signal.origin?.client);
      }
    });
  }

  private async store(manager: EntityManager, event: DomainEvent): Promise<void> {
    const client = event.origin?.client;
    switch (event.type) {
      // A change with the current password, or a reset by link: whoever did it, the owner hears.
      case 'user.password_changed':
        if (event.data.how !== 'change' && event.data.how !== 'reset') return;
        // `updatedAt` as stored after the change: when it was made.
        return this.notice(manager, 'password-changed', event.data.user, client, true);
      case 'mfa.enabled':
        return this.notice(manager, 'mfa-enabled', event.data.user, client);
      case 'mfa.disabled':
        return this.notice(manager, 'mfa-disabled', event.data.user, client);
    }
  }

  private notice(
    manager: EntityManager,
    kind: 'password-changed' | 'mfa-enabled' | 'mfa-disabled',
    user: User,
    client: ClientInfo | undefined,
    atChange = false,
  ): Promise<void> {
    const at = atChange ? user.updatedAt : new Date();
    const message = { to: user.email, username: user.username, at, ip: client?.ip };
    return this.queue.queueAndSend(manager, { kind, message });
  }

  private async recoveryCodeUsed(user: User, client: ClientInfo | undefined): Promise<void> {
    try {
      await this.mail.sendMfaNotice('recovery-code-used', {
        to: user.email,
        username: user.username,
        at: new Date(),
        ip: client?.ip,
      });
    } catch (error) {
      this.logger.warn({
        requestId: client?.requestId,
        msg: `The recovery-code-used notice to ${user.id} was not sent (${
          error instanceof MailDeliveryError ? error.reason : 'unknown error'
        })`,
      });
    }
  }
}
