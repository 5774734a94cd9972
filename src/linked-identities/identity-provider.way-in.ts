import { Injectable, OnModuleInit } from '@nestjs/common';
import { SignInMethodRegistry } from '../auth/sign-in-methods.registry';
import { FederationConfig } from '../config/config.sections';
import { requiredProviderFor } from '../config/sso-domains';
import { User } from '../users/user.entity';
import { LinkedIdentitiesService } from './linked-identities.service';

export const IDENTITY_PROVIDER = 'identity_provider';

/**
 * Signing in through an identity provider (RFC 8176 `fed`: one factor, the provider's), offered
 * when AUTH_PROVIDERS names one; held as many times as the account has linked identities. A
 * step-up needs one linked at a provider still configured (for a domain that must sign in
 * through its own provider, that one).
 */
@Injectable()
export class IdentityProviderWayIn implements OnModuleInit {
  constructor(
    private readonly registry: SignInMethodRegistry,
    private readonly config: FederationConfig,
    private readonly identities: LinkedIdentitiesService,
  ) {}

  onModuleInit(): void {
    this.registry.register({
      id: IDENTITY_PROVIDER,
      order: 40,
      amr: ['fed'],
      listed: true,
      enabled: () => this.config.providers.length > 0,
      heldBy: async (manager, userId) => (await this.identities.lockedOf(manager, userId)).length,
      stepUpFor: (user) => this.usableBy(user),
    });
  }

  private async usableBy(user: User): Promise<boolean> {
    const linked = await this.identities.list(user.id);
    const required = requiredProviderFor(this.config.providers, user.email);
    return linked.some((identity) =>
      required
        ? identity.provider === required.id
        : this.config.providers.some((provider) => provider.id === identity.provider),
    );
  }
}
