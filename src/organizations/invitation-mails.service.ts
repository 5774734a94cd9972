import { Injectable, Logger } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { ApplicationUrlPolicy } from '../auth/application-url.policy';
import { AppException } from '../common/errors/app.exception';
import { ClientInfo } from '../common/http/request-context';
import { Database } from '../database/database.service';
import { MailRecipientCap } from '../mail/mail-recipient-cap.service';
import { MailDeliveryError, MailService } from '../mail/mail.service';
import { User } from '../users/user.entity';
import { OrganizationInvitation } from './organization-invitation.entity';
import { Organization } from './organization.entity';

/** Seven days: an invitation's life. */
export const INVITATION_TTL = 7 * 24 * 3600;

/**
 * The invitations' mail: the link's application URL (one of APP_ORIGINS), the per-recipient cap,
 * and the message, whose failure withdraws the invitation it carried.
 */
@Injectable()
export class InvitationMails {
  private readonly logger = new Logger(InvitationMails.name);

  constructor(
    @InjectRepository(OrganizationInvitation)
    private readonly invitations: Repository<OrganizationInvitation>,
    private readonly database: Database,
    private readonly mail: MailService,
    private readonly cap: MailRecipientCap,
    private readonly applicationUrls: ApplicationUrlPolicy,
  ) {}

  /** The application URL the link goes to, or 400 when not one of APP_ORIGINS. */
  applicationUrl(url: string | undefined): string | undefined {
    return this.applicationUrls.check(url, 'applicationUrl');
  }

  /** One more invitation mail to `email` in the window, or 429. */
  take(email: string): Promise<void> {
    return this.cap.take('invitation', email);
  }

  /** The mail, or 503 EMAIL_SERVICE_ERROR with the invitation withdrawn (nobody holds it). */
  async send(
    organization: Organization,
    invitation: OrganizationInvitation,
    token: string,
    inviter: User,
    applicationUrl: string | undefined,
    client: ClientInfo,
  ): Promise<void> {
    try {
      await this.mail.sendInvitation({
        to: invitation.email,
        organizationName: organization.name,
        inviter: inviter.username,
        token,
        applicationUrl,
        ttl: INVITATION_TTL,
      });
    } catch (error) {
      await this.database
        .run((manager) =>
          manager
            .withRepository(this.invitations)
            .update({ id: invitation.id }, { withdrawnAt: new Date() }),
        )
        .catch(() => undefined);
      if (error instanceof MailDeliveryError) {
        this.logger.warn({
          requestId: client.requestId,
          msg: `The invitation email of ${invitation.id} was not sent (${error.reason})`,
        });
        throw new AppException('EMAIL_SERVICE_ERROR');
      }
      throw error;
    }
  }
}
