import { Injectable } from '@nestjs/common';
import { randomInt } from 'node:crypto';
import { DomainEvents } from '../events/domain-events.service';
import { AppException } from '../common/errors/app.exception';
import { ClientInfo } from '../common/http/request-context';
import { Database } from '../database/database.service';
import {
  LinkedIdentitiesService,
  IdentityTaken,
} from '../linked-identities/linked-identities.service';
import { BlockingHooks } from '../hooks/blocking-hooks';
import { IDENTITY_PROVIDER } from '../linked-identities/identity-provider.way-in';
import { USERNAME_PATTERN, cleanEmail, normalizeEmail } from '../users/identity.normalizer';
import { User } from '../users/user.entity';
import { DuplicateUserError, UsersService } from '../users/users.service';
import { Flow } from './provider-flow-states.service';
import { ProviderProfile } from './provider-profile';

const USERNAME_TRIES = 5;

/**
 * What a provider's round trip writes: an identity linked to the signed-in account that asked
 * (its owner told by mail), or a new account without a password for an unknown identity.
 */
@Injectable()
export class IdentityAccounts {
  constructor(
    private readonly identities: LinkedIdentitiesService,
    private readonly users: UsersService,
    private readonly database: Database,
    private readonly events: DomainEvents,
    private readonly hooks: BlockingHooks,
  ) {}

  /**
   * Links the identity to the flow's account. IdentityTaken when it (or one of this provider)
   * is linked already; INVALID_TOKEN when the account is gone, disabled or signed out since.
   */
  async link(flow: Flow, profile: ProviderProfile, client: ClientInfo): Promise<void> {
    const userId = flow.userId!;
    await this.database.transaction(async (manager) => {
      // Held to the commit: a reset's ending of the sessions comes before or after, not amid.
      const user = await this.users.findForUpdate(manager, userId);
      if (!user || user.disabledAt) throw new AppException('INVALID_TOKEN');
      // Every session ended since the link began (a reset, "sign out everywhere"): the one
      // that asked for it may be a thief's, cut off by the owner, who must not find its
      // identity linked.
      if (user.tokenVersion !== flow.tokenVersion) throw new AppException('INVALID_TOKEN');
      const identity = await this.identities.link(manager, {
        userId,
        provider: flow.provider,
        subject: profile.subject,
        email: profile.email,
      });
      await this.events.publish(manager, {
        type: 'identity.linked',
        data: { user, identity: { id: identity.id, provider: identity.provider } },
        origin: { client },
      });
    });
  }

  /**
   * A new account without a password, its identity and its `registered` event together. Null
   * when the email was taken meanwhile; a taken username is tried again with digits added. A
   * `before_user_created` hook's refusal (or failure) is its AppException, nothing stored.
   */
  async create(
    provider: string,
    profile: ProviderProfile,
    client: ClientInfo,
  ): Promise<User | null> {
    const email = profile.email!;
    // Asked before anything is stored, with the username the first try takes.
    const proposed = { email: cleanEmail(email), username: usernameFor(profile, 0) };
    await this.hooks.beforeUserCreated(proposed, IDENTITY_PROVIDER);
    for (let attempt = 0; attempt < USERNAME_TRIES; attempt += 1) {
      try {
        return await this.database.transaction(async (manager) => {
          const created = await this.users.create(manager, {
            email,
            username: usernameFor(profile, attempt),
            passwordHash: null,
          });
          const user = profile.emailVerified
            ? await this.users.markEmailVerified(manager, created.id)
            : created;
          const identity = await this.identities.link(manager, {
            userId: user.id,
            provider,
            subject: profile.subject,
            email,
          });
          await this.events.publish(manager, {
            type: 'user.created',
            data: { user, method: provider },
            origin: { client },
          });
          await this.events.publish(manager, {
            type: 'identity.linked',
            data: { user, identity: { id: identity.id, provider }, accountCreated: true },
            origin: { client },
          });
          return user;
        });
      } catch (error) {
        if (error instanceof DuplicateUserError && error.conflict === 'username') continue;
        if (error instanceof DuplicateUserError || error instanceof IdentityTaken) return null;
        throw error;
      }
    }
    throw new Error('No free username found for a new account');
  }
}

/**
 * A username from the provider's hint or the address's local part, reduced to the characters a
 * username may have; from the second attempt on, random digits are added to make it unique.
 */
export function usernameFor(profile: Pick<ProviderProfile, 'username' | 'email'>, attempt: number) {
  const hint = profile.username ?? normalizeEmail(profile.email ?? '').split('@')[0] ?? '';
  let base = hint.replace(/[^A-Za-z0-9._-]+/g, '').slice(0, 24);
  if (base.length < 3) base = `user${base}`;
  const name = attempt === 0 ? base : `${base}-${randomInt(100_000, 1_000_000)}`;
  return USERNAME_PATTERN.test(name) ? name : `user-${randomInt(100_000, 1_000_000)}`;
}
