import { Injectable, Logger } from '@nestjs/common';
import { AuditTrail } from '../audit/audit-trail.service';
import { PasswordHasher } from '../auth/hashing/password-hasher.service';
import { AppException } from '../common/errors/app.exception';
import { ClientInfo } from '../common/http/request-context';
import { IDENTITY_PASSWORD_MESSAGE, matchesIdentity } from '../common/validation/password-rules';
import { Database } from '../database/database.service';
import { MailService } from '../mail/mail.service';
import { AccessTokensService, SessionTokens } from '../tokens/access-tokens.service';
import { RefreshTokensService } from '../tokens/refresh-tokens.service';
import { RevocationService } from '../tokens/revocation.service';
import { VerificationTokensService } from '../tokens/verification-tokens.service';
import { User } from '../users/user.entity';
import { UsersService } from '../users/users.service';
import { CurrentPassword } from '../auth/current-password.service';

export interface PasswordChanged {
  user: User;
  /** The caller's new session: every earlier one, the caller's own included, has ended. */
  tokens: SessionTokens;
}

/**
 * Changing the password with the current one. Every session of the user ends, and the caller
 * gets a new one in the same transaction: a revocation by token version cannot spare one access
 * token, and a fresh session is the same state a login after the change would give.
 */
@Injectable()
export class PasswordChangeService {
  private readonly logger = new Logger(PasswordChangeService.name);

  constructor(
    private readonly database: Database,
    private readonly users: UsersService,
    private readonly hasher: PasswordHasher,
    private readonly currentPassword: CurrentPassword,
    private readonly accessTokens: AccessTokensService,
    private readonly refreshTokens: RefreshTokensService,
    private readonly revocation: RevocationService,
    private readonly verificationTokens: VerificationTokensService,
    private readonly mail: MailService,
    private readonly audit: AuditTrail,
  ) {}

  async change(
    userId: string,
    currentPassword: string,
    newPassword: string,
    client?: ClientInfo,
  ): Promise<PasswordChanged> {
    const stored = await this.users.findById(userId);
    // Deleted since the token check: the token names no account any more.
    if (!stored) throw new AppException('INVALID_TOKEN');
    await this.currentPassword.confirm(stored, currentPassword);
    if (matchesIdentity(newPassword, [stored.email, stored.username])) {
      throw new AppException('VALIDATION_ERROR', {
        details: [{ field: 'newPassword', message: IDENTITY_PASSWORD_MESSAGE('newPassword') }],
      });
    }
    const passwordHash = await this.hasher.hash(newPassword);
    const changed = await this.database.transaction(async (manager) => {
      // The hash checked above must still be the stored one: of two parallel changes with the
      // same current password, the second finds the first's hash and is refused.
      const hash = await this.users.passwordHashShared(manager, userId);
      // Deleted meanwhile: as any call with a token whose account is gone.
      if (hash === undefined) throw new AppException('INVALID_TOKEN');
      if (hash !== stored.passwordHash) throw new AppException('INVALID_PASSWORD');
      // Sessions first, then the user row, as in every revocation, then the new session.
      await this.revocation.revokeEverything(userId, manager);
      await this.users.setPasswordHash(manager, userId, passwordHash);
      // Disabled meanwhile (the row is held now): no new session for it; the rollback keeps
      // the password and sessions as the administrator left them.
      if ((await manager.findOneByOrFail(User, { id: userId })).disabledAt) {
        throw new AppException('ACCOUNT_DISABLED');
      }
      // A reset link mailed before the change would otherwise set the password back, and a
      // pending email change asked for with the old password would still move the account.
      await this.verificationTokens.retireOlder(manager, userId, 'password_reset');
      await this.verificationTokens.retireOlder(manager, userId, 'email_change');
      const refresh = await this.refreshTokens.startWithin(manager, userId, client);
      await this.audit.record(manager, 'password_changed', userId, client, {
        sessionId: refresh.family,
      });
      const user = await manager.findOneByOrFail(User, { id: userId });
      return { user, refresh };
    });
    const { user, refresh } = changed;
    const tokens = this.accessTokens.sessionTokens(user, refresh);
    await this.notify(user, client);
    return { user, tokens };
  }

  /**
   * The change is made whether or not the notice goes out: a mail failure is logged, and the
   * answer stays the success it is (failing it would tell the user the old password still works).
   */
  private async notify(user: User, client: ClientInfo | undefined): Promise<void> {
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
        msg: `The password-changed notice to ${user.id} was not sent (${describe(error)})`,
      });
    }
  }
}

function describe(error: unknown): string {
  return (error as { reason?: string } | null)?.reason ?? 'unknown error';
}
