import { Injectable, Logger } from '@nestjs/common';
import { ClientInfo } from '../common/http/request-context';
import { MailDeliveryError, MailService } from './mail.service';
import { User } from '../users/user.entity';

/**
 * The "your password was changed" mail, after a change with the current password and after a
 * reset by emailed link alike. The password is set whether or not the notice goes out: a mail
 * failure is logged, and the answer stays the success it is (failing it would tell the user the
 * old password still works).
 */
@Injectable()
export class PasswordChangedNotice {
  private readonly logger = new Logger(PasswordChangedNotice.name);

  constructor(private readonly mail: MailService) {}

  /** `user` as stored after the change: its `updatedAt` is when the change was made. */
  async send(user: User, client: ClientInfo | undefined): Promise<void> {
    try {
      await this.mail.sendPasswordChangedNotice({
        to: user.email,
        username: user.username,
        at: user.updatedAt,
        ip: client?.ip,
      });
    } catch (error) {
      this.logger.warn({
        requestId: client?.requestId,
        msg: `The password-changed notice to ${user.id} was not sent (${
          error instanceof MailDeliveryError ? error.reason : 'unknown error'
        })`,
      });
    }
  }
}
