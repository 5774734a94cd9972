import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { ClientInfo } from '../common/http/request-context';
import { DomainEvent } from '../events/domain-event.catalogue';
import { DomainEvents } from '../events/domain-events.service';
import { User } from '../users/user.entity';
import { MailDeliveryError, MailService, MfaNotice } from './mail.service';
import { PasswordChangedNotice } from './password-changed-notice.service';

/**
 * The notices to an account's owner after a change to how they sign in, sent once the change
 * has committed and before the answer, as the services sent them. The change stands whether or
 * not a notice goes out: one that cannot be sent is logged.
 */
@Injectable()
export class NoticeMails implements OnModuleInit {
  private readonly logger = new Logger(NoticeMails.name);

  constructor(
    private readonly bus: DomainEvents,
    private readonly mail: MailService,
    private readonly passwordChanged: PasswordChangedNotice,
  ) {}

  onModuleInit(): void {
    this.bus.onCommitted((event) => this.send(event));
    // A recovery code is a way in spent: the owner hears of each, as of a change.
    this.bus.onSignalCommitted(async (signal) => {
      if (signal.type === 'mfa.recovery_code_used' && signal.user) {
        await this.mfa('recovery-code-used', signal.user, signal.origin?.client);
      }
    });
  }

  private async send(event: DomainEvent): Promise<void> {
    const client = event.origin?.client;
    switch (event.type) {
      // A change with the current password, or a reset by link: whoever did it, the owner hears.
      case 'user.password_changed':
        if (event.data.how === 'change' || event.data.how === 'reset') {
          await this.passwordChanged.send(event.data.user, client);
        }
        return;
      case 'mfa.enabled':
        return this.mfa('mfa-enabled', event.data.user, client);
      case 'mfa.disabled':
        return this.mfa('mfa-disabled', event.data.user, client);
    }
  }

  private async mfa(kind: MfaNotice, user: User, client: ClientInfo | undefined): Promise<void> {
    try {
      await this.mail.sendMfaNotice(kind, {
        to: user.email,
        username: user.username,
        at: new Date(),
        ip: client?.ip,
      });
    } catch (error) {
      this.logger.warn({
        requestId: client?.requestId,
        msg: `The ${kind} notice to ${user.id} was not sent (${
          error instanceof MailDeliveryError ? error.reason : 'unknown error'
        })`,
      });
    }
  }
}
