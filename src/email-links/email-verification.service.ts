import { Injectable } from '@nestjs/common';
import { DomainEvents } from '../events/domain-events.service';
import { ClientInfo } from '../common/http/request-context';
import { Database } from '../database/database.service';
import { ApplicationUrlPolicy } from '../auth/application-url.policy';
import { MailboxProof } from '../auth/mailbox-proof.service';
import { VerificationTokensService } from '../tokens/verification-tokens.service';
import { User } from '../users/user.entity';
import { UsersService } from '../users/users.service';
import { EmailLinksService } from './email-links.service';

/** The verification link followed: the address is proven. */
@Injectable()
export class EmailVerification {
  constructor(
    private readonly database: Database,
    private readonly users: UsersService,
    private readonly tokens: VerificationTokensService,
    private readonly applicationUrls: ApplicationUrlPolicy,
    private readonly events: DomainEvents,
    private readonly mailboxProof: MailboxProof,
    private readonly flows: EmailLinksService,
  ) {}

  /** Returns the verified user and, when one was given and is allowed, where the app goes next. */
  async verifyEmail(
    token: string,
    applicationUrl?: string,
    client?: ClientInfo,
  ): Promise<{ user: User; redirectUrl?: string }> {
    const redirectUrl = this.applicationUrls.check(applicationUrl, 'applicationUrl');
    const user = await this.database.transaction(async (manager) => {
      const { row, refusal } = await this.tokens.consume(manager, token, 'email_verification');
      if (!row) throw await this.flows.refusedLink(manager, refusal, 'email_verification');
      const userId = row.userId;
      const before = await this.users.requireIn(manager, userId);
      await this.mailboxProof.proven(manager, userId, before.emailVerified, client);
      const user = await this.users.markEmailVerified(manager, userId);
      await this.events.publish(manager, {
        type: 'user.email_verified',
        data: { user },
        origin: { client },
      });
      return user;
    });
    return { user, redirectUrl };
  }
}
