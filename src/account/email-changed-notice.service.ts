import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { ClientInfo } from '../common/http/request-context';
import { MailConfig } from '../config/config.sections';
import { Database } from '../database/database.service';
import { DomainEvent } from '../events/domain-event.catalogue';
import { DomainEvents } from '../events/domain-events.service';
import { MailDeliveryError, MailService } from '../mail/mail.service';
import { VerificationTokensService } from '../tokens/verification-tokens.service';
import { User } from '../users/user.entity';

/**
 * The notice to the old address once an email change is confirmed, with a link that undoes it
 * (EmailChangeUndoService). The link is issued inside the change's transaction, so there is no
 * change without its way back; the mail goes once it has committed. The change stands whether
 * or not the notice goes out: one that could not be sent is logged.
 */
@Injectable()
export class EmailChangedNotice implements OnModuleInit {
  private readonly logger = new Logger(EmailChangedNotice.name);

  constructor(
    private readonly events: DomainEvents,
    private readonly database: Database,
    private readonly tokens: VerificationTokensService,
    private readonly mail: MailService,
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
    const client = event.origin?.client;
    this.database.afterCommit(manager, () =>
      this.send(user, previousEmail, { token, ttl }, client),
    );
  }

  private async send(
    user: User,
    previousEmail: string,
    undo: { token: string; ttl: number },
    client: ClientInfo | undefined,
  ): Promise<void> {
    try {
      await this.mail.sendEmailChangedNotice({
        to: previousEmail,
        username: user.username,
        at: user.updatedAt,
        ip: client?.ip,
        newEmail: user.email,
        undo,
      });
    } catch (error) {
      this.logger.warn({
        requestId: client?.requestId,
        msg: `The email-changed notice to the old address of ${user.id} was not sent (${
          error instanceof MailDeliveryError ? error.reason : 'unknown error'
        })`,
      });
    }
  }
}
