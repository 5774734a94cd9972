import { Injectable } from '@nestjs/common';
import { AccountRemoval } from '../account-removal/account-removal.service';
import { DomainEvents } from '../events/domain-events.service';
import { EmailLinksService } from '../email-links/email-links.service';
import { AppException } from '../common/errors/app.exception';
import { ClientInfo } from '../common/http/request-context';
import { Database } from '../database/database.service';
import { SessionsService } from '../sessions/sessions.service';
import { VerificationTokensService } from '../tokens/verification-tokens.service';
import { ListOptions, UserDirectory, UserPage } from '../users/user-directory.service';
import { Role, User } from '../users/user.entity';
import { SecondFactorService } from '../second-factor/second-factor.service';
import { AdminUserView, adminUserView } from './admin-user.view';

/**
 * What an administrator does to accounts. Each change and its audit event (naming the
 * administrator as `actor_id`) commit together; each gives the user a new generation after the
 * commit, so every instance's next token check sees it. An administrator cannot disable,
 * demote or delete their own account here: the last one could otherwise lock everyone out.
 */
@Injectable()
export class AdminUsersService {
  constructor(
    private readonly database: Database,
    private readonly directory: UserDirectory,
    private readonly sessions: SessionsService,
    private readonly verificationTokens: VerificationTokensService,
    private readonly events: DomainEvents,
    private readonly removal: AccountRemoval,
    private readonly emailFlows: EmailLinksService,
    private readonly mfa: SecondFactorService,
  ) {}

  list(options: ListOptions): Promise<UserPage> {
    return this.directory.list(options);
  }

  /** Users as administrators see them, whether two-step sign-in is on included. */
  async views(users: User[]): Promise<AdminUserView[]> {
    const withFactor = await this.mfa.enabledAmong(users.map((user) => user.id));
    return users.map((user) => adminUserView(user, withFactor.has(user.id)));
  }

  async view(user: User): Promise<AdminUserView> {
    return (await this.views([user]))[0];
  }

  /**
   * Switches the user's second factor off (a lost phone and no recovery code left): on record
   * with the administrator as actor, and the user is mailed.
   */
  async resetSecondFactor(admin: User, id: string, client: ClientInfo): Promise<User> {
    const user = await this.get(id);
    await this.mfa.disable(user, client, admin.id);
    return user;
  }

  async get(id: string): Promise<User> {
    return (await this.directory.find(id)) ?? notFound();
  }

  /** Unchanged when the user has the role already (no event). */
  setRole(admin: User, id: string, role: Role, client: ClientInfo): Promise<User> {
    if (role !== 'admin') refuseSelf(admin, id, 'demote');
    return this.database.transaction(async (manager) => {
      const user = (await this.directory.findForUpdate(manager, id)) ?? notFound();
      if (user.role === role) return user;
      const updated = (await this.directory.setRoleIn(manager, id, role)) ?? notFound();
      await this.events.publish(manager, {
        type: 'user.updated',
        data: { user: updated, changes: ['role'] },
        origin: { client, actorId: admin.id },
      });
      return updated;
    });
  }

  /**
   * Ends every session and access token of the user at once and keeps it from logging in or
   * refreshing until enabled again. Disabling a disabled account changes nothing.
   */
  disable(admin: User, id: string, client: ClientInfo): Promise<User> {
    refuseSelf(admin, id, 'disable');
    return this.database.transaction(async (manager) => {
      // Not locked yet: sessions are locked before the user row, the order of every revocation.
      const user = (await this.directory.findIn(manager, id)) ?? notFound();
      if (user.disabledAt !== null) return user;
      const ended = await this.sessions.endAll(id, manager);
      // Now held, and read as committed: a parallel disable that won keeps the only event.
      const held = (await this.directory.findForUpdate(manager, id)) ?? notFound();
      if (held.disabledAt !== null) return held;
      const updated = (await this.directory.setDisabledIn(manager, id, new Date())) ?? notFound();
      // A pending email change would otherwise still move the disabled account (and retire the
      // reset link an administrator may send for its recovery).
      await this.verificationTokens.retireOlder(manager, id, 'email_change');
      const origin = { client, actorId: admin.id };
      if (ended.length > 0) {
        await this.events.publish(manager, {
          type: 'session.revoked',
          data: {
            userId: id,
            sessions: ended.map((sid) => ({ id: sid })),
            reason: 'account_disabled',
          },
          origin,
        });
      }
      await this.events.publish(manager, {
        type: 'user.updated',
        data: { user: updated, changes: ['disabled'] },
        origin,
      });
      return updated;
    });
  }

  /** The user may log in again (with the password it has); its old sessions stay ended. */
  enable(admin: User, id: string, client: ClientInfo): Promise<User> {
    return this.database.transaction(async (manager) => {
      const user = (await this.directory.findForUpdate(manager, id)) ?? notFound();
      if (user.disabledAt === null) return user;
      const updated = (await this.directory.setDisabledIn(manager, id, null)) ?? notFound();
      await this.events.publish(manager, {
        type: 'user.updated',
        data: { user: updated, changes: ['disabled'] },
        origin: { client, actorId: admin.id },
      });
      return updated;
    });
  }

  /** Every refresh and access token of the user, on every device, as a logout does. */
  endSessions(admin: User, id: string, client: ClientInfo): Promise<void> {
    return this.database.transaction(async (manager) => {
      if (!(await this.directory.findIn(manager, id))) notFound();
      const ended = await this.sessions.endAll(id, manager);
      await this.events.publish(manager, {
        type: 'session.revoked',
        data: { userId: id, sessions: ended.map((sid) => ({ id: sid })), reason: 'admin' },
        origin: { client, actorId: admin.id },
      });
    });
  }

  async sendPasswordReset(
    admin: User,
    id: string,
    applicationUrl: string | undefined,
    client: ClientInfo,
  ): Promise<void> {
    const user = await this.get(id);
    await this.emailFlows.sendPasswordReset(user, applicationUrl, client, admin.id);
  }

  async delete(admin: User, id: string, client: ClientInfo): Promise<void> {
    refuseSelf(admin, id, 'delete');
    if (!(await this.removal.remove(id, client, admin.id))) notFound();
  }
}

function notFound(): never {
  throw new AppException('USER_NOT_FOUND', { message: 'No user has this id' });
}

function refuseSelf(admin: User, id: string, action: 'disable' | 'demote' | 'delete'): void {
  if (admin.id !== id) return;
  throw new AppException('CANNOT_MODIFY_SELF', {
    message: `Administrators cannot ${action} their own account; another administrator can`,
  });
}
