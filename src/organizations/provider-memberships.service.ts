import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { FederationConfig, IdentityProvider } from '../config/config.sections';
import { providerForEmail } from '../config/sso-domains';
import { Database } from '../database/database.service';
import { DomainEvent, EventOrigin } from '../events/domain-event.catalogue';
import { DomainEvents } from '../events/domain-events.service';
import { User } from '../users/user.entity';
import { Memberships } from './memberships.service';
import { Organization } from './organization.entity';
import { refOf } from './organizations.service';

/**
 * A provider of AUTH_PROVIDERS that names an `organization` brings the people who sign in
 * through it into that organization, as `member`: when the identity is linked (the account's
 * first sign-in through it included) and at every sign-in through it that completes (a second
 * step included). An existing membership keeps its role. With `domains`, only an account whose
 * verified address is in them joins. A slug no organization has is logged (once per instance)
 * and the sign-in goes on: organizations are data, created after the configuration is read.
 * Everything is written in the transaction of the event it hears, with `member_added`.
 */
@Injectable()
export class ProviderMemberships implements OnModuleInit {
  private readonly logger = new Logger(ProviderMemberships.name);
  private readonly told = new Set<string>();

  constructor(
    private readonly federation: FederationConfig,
    private readonly events: DomainEvents,
    private readonly database: Database,
    private readonly memberships: Memberships,
    @InjectRepository(Organization) private readonly organizations: Repository<Organization>,
  ) {}

  onModuleInit(): void {
    // No provider names one: nothing to hear, and no sign-in pays for it.
    if (!this.federation.providers.some((provider) => provider.organization)) return;
    this.events.onTransaction((manager, event) => this.hear(manager, event));
  }

  private async hear(manager: EntityManager, event: DomainEvent): Promise<void> {
    const through =
      event.type === 'identity.linked'
        ? { user: event.data.user, provider: event.data.identity.provider }
        : event.type === 'session.created'
          ? { user: event.data.user, provider: event.data.provider }
          : undefined;
    const provider = this.federation.providers.find((one) => one.id === through?.provider);
    if (!through || !provider?.organization || !this.belongs(provider, through.user)) return;
    await this.join(manager, provider.organization, through.user.id, event.origin);
  }

  private belongs(provider: IdentityProvider, user: User): boolean {
    if (provider.domains.length === 0) return true;
    return user.emailVerified && providerForEmail([provider], user.email) !== undefined;
  }

  private async join(
    manager: EntityManager,
    slug: string,
    userId: string,
    origin: EventOrigin | undefined,
  ): Promise<void> {
    const found = await manager.withRepository(this.organizations).findOneBy({ slug });
    if (!found) return this.tellMissing(slug);
    if (await this.memberships.findIn(manager, found.id, userId)) return;
    // Held to the commit: an organization deleted meanwhile takes no new member.
    const organization = await manager
      .withRepository(this.organizations)
      .findOne({ where: { id: found.id }, lock: this.database.rowLock });
    // Gone, or the same person's other sign-in, at the same moment, made them a member.
    if (
      !organization ||
      !(await this.memberships.add(manager, organization.id, userId, 'member'))
    ) {
      return;
    }
    await this.events.publish(manager, {
      type: 'organization.member_added',
      data: { organization: refOf(organization), userId, role: 'member' },
      origin,
    });
  }

  private tellMissing(slug: string): void {
    if (this.told.has(slug)) return;
    this.told.add(slug);
    this.logger.warn(
      `AUTH_PROVIDERS names organization "${slug}", which does not exist: nobody joins it until it is created`,
    );
  }
}
