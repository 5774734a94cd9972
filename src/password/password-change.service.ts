import { Injectable } from '@nestjs/common';
import { DomainEvents } from '../events/domain-events.service';
import { PasswordHasher } from '../auth/hashing/password-hasher.service';
import { AppException } from '../common/errors/app.exception';
import { ClientInfo } from '../common/http/request-context';
import { IDENTITY_PASSWORD_MESSAGE, matchesIdentity } from '../common/validation/password-rules';
import { Database } from '../database/database.service';
import { SsoRequirement } from '../auth/sso-requirement';
import { AccessTokensService, SessionTokens } from '../tokens/access-tokens.service';
import { SessionsService } from '../sessions/sessions.service';
import { VerificationTokensService } from '../tokens/verification-tokens.service';
import { User } from '../users/user.entity';
import { UsersService } from '../users/users.service';
import { CurrentPassword } from '../auth/current-password.service';
import { PASSWORD_AMR } from './password.way-in';

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
  constructor(
    private readonly database: Database,
    private readonly users: UsersService,
    private readonly hasher: PasswordHasher,
    private readonly currentPassword: CurrentPassword,
    private readonly accessTokens: AccessTokensService,
    private readonly sessions: SessionsService,
    private readonly verificationTokens: VerificationTokensService,
    private readonly events: DomainEvents,
    private readonly sso: SsoRequirement,
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
    // Its domain signs in through its provider only: no password is set, new or changed.
    this.sso.refuse(stored.email);
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
      const ended = await this.sessions.endAll(userId, manager);
      await this.users.setPasswordHash(manager, userId, passwordHash);
      // Disabled meanwhile (the row is held now): no new session for it; the rollback keeps
      // the password and sessions as the administrator left them.
      if ((await this.users.requireIn(manager, userId)).disabledAt) {
        throw new AppException('ACCOUNT_DISABLED');
      }
      // A reset link mailed before the change would otherwise set the password back, and a
      // pending email change asked for with the old password would still move the account.
      await this.verificationTokens.retireOlder(manager, userId, 'password_reset');
      await this.verificationTokens.retireOlder(manager, userId, 'email_change');
      // The caller proved the password just now: a session authenticated by it.
      const refresh = await this.sessions.start(manager, userId, PASSWORD_AMR, client);
      const user = await this.users.requireIn(manager, userId);
      const origin = { client };
      if (ended.length > 0) {
        await this.events.publish(manager, {
          type: 'session.revoked',
          data: { userId, sessions: ended.map((id) => ({ id })), reason: 'password_changed' },
          origin,
        });
      }
      // The caller's new session comes with the change (not a sign-in); the notice follows it.
      const session = { id: refresh.family, amr: [...refresh.auth.methods] };
      await this.events.publish(manager, {
        type: 'user.password_changed',
        data: { user, how: 'change', session },
        origin,
      });
      return { user, refresh };
    });
    const { user, refresh } = changed;
    // The password has changed even if a custom_access_token hook refuses the new session's token.
    const issued = this.accessTokens.sessionTokens(user, refresh);
    return { user, tokens: issued instanceof Promise ? await issued : issued };
  }
}
