import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, IsNull, MoreThan, Repository } from 'typeorm';
import { AppException } from '../common/errors/app.exception';
import { ClientInfo } from '../common/http/request-context';
import { Database } from '../database/database.service';
import { DomainEvents } from '../events/domain-events.service';
import { invalidLink } from '../tokens/invalid-link';
import { hashToken, randomToken } from '../tokens/token-hash';
import { cleanEmail, normalizeEmail } from '../users/identity.normalizer';
import { User } from '../users/user.entity';
import { UsersService } from '../users/users.service';
import { INVITATION_TTL, InvitationMails } from './invitation-mails.service';
import { Memberships } from './memberships.service';
import { OrgRoleName, newId } from './org-roles';
import { OrganizationInvitation } from './organization-invitation.entity';
import { OrganizationMember } from './organization-member.entity';
import { Organization } from './organization.entity';
import { OrganizationsService, refOf } from './organizations.service';

/**
 * Invitations to join an organization, mailed with a single-use token (only its SHA-256 is
 * stored) valid for seven days. An admin invites (an owner only as owner) and withdraws; the
 * invited person accepts once signed in to the account whose verified email is the invited one,
 * which an address without an account can register first. A newer invitation to the same
 * address withdraws the older ones.
 */
@Injectable()
export class InvitationsService {
  constructor(
    @InjectRepository(OrganizationInvitation)
    private readonly invitations: Repository<OrganizationInvitation>,
    private readonly database: Database,
    private readonly organizations: OrganizationsService,
    private readonly memberships: Memberships,
    private readonly users: UsersService,
    private readonly mails: InvitationMails,
    private readonly events: DomainEvents,
  ) {}

  async invite(
    organizationId: string,
    actor: { membership: OrganizationMember; user: User },
    input: { email: string; role: OrgRoleName; applicationUrl?: string },
    client: ClientInfo,
  ): Promise<OrganizationInvitation> {
    if (input.role === 'owner' && actor.membership.role !== 'owner') {
      throw new AppException('FORBIDDEN', { message: 'Only an owner can invite an owner' });
    }
    const url = this.mails.applicationUrl(input.applicationUrl);
    const email = cleanEmail(input.email);
    const existing = await this.users.findByEmail(email);
    if (existing && (await this.memberships.find(organizationId, existing.id))) {
      throw new AppException('ALREADY_MEMBER');
    }
    const organization = await this.organizations.get(organizationId);
    await this.mails.take(email);
    const token = randomToken();
    const now = new Date();
    const invitation: OrganizationInvitation = {
      id: newId('inv'),
      organizationId,
      email,
      emailNormalized: normalizeEmail(email),
      role: input.role,
      tokenHash: hashToken(token),
      invitedBy: actor.user.id,
      createdAt: now,
      expiresAt: new Date(now.getTime() + INVITATION_TTL * 1000),
      acceptedAt: null,
      withdrawnAt: null,
    };
    await this.database.transaction(async (manager) => {
      const repository = manager.withRepository(this.invitations);
      await repository.update(
        { organizationId, emailNormalized: invitation.emailNormalized, ...pending() },
        { withdrawnAt: now },
      );
      await repository.insert(invitation);
      await this.events.publish(manager, {
        type: 'organization.invitation_created',
        data: { organization: refOf(organization), invitation: summary(invitation) },
        origin: { client, actorId: actor.user.id },
      });
    });
    await this.mails.send(organization, invitation, token, actor.user, url, client);
    return invitation;
  }

  /** The organization's invitations still open (neither used, withdrawn nor expired). */
  list(organizationId: string): Promise<OrganizationInvitation[]> {
    return this.invitations.find({
      where: { organizationId, ...pending(), expiresAt: MoreThan(new Date()) },
      order: { createdAt: 'ASC', id: 'ASC' },
    });
  }

  /** 404 ORGANIZATION_NOT_FOUND (of an invitation) when it is not an open one of the organization. */
  async withdraw(organizationId: string, invitationId: string): Promise<void> {
    const { affected } = await this.invitations.update(
      { id: invitationId, organizationId, ...pending() },
      { withdrawnAt: new Date() },
    );
    if (!affected) {
      throw new AppException('ORGANIZATION_NOT_FOUND', {
        message: 'No such open invitation of this organization exists',
      });
    }
  }

  /**
   * The signed-in `user` accepts: 401 INVALID_TOKEN for a token never issued, used, withdrawn or
   * expired (with the reason); 403 INVITATION_EMAIL_MISMATCH unless the account's verified email
   * is the invited one; 409 ALREADY_MEMBER for a member. The membership and the invitation's use
   * commit together.
   */
  async accept(
    user: User,
    token: string,
    client: ClientInfo,
  ): Promise<{ organization: Organization; role: OrgRoleName }> {
    return this.database.transaction(async (manager) => {
      const invitation = await manager.withRepository(this.invitations).findOne({
        where: { tokenHash: hashToken(token) },
        lock: this.database.rowLock,
      });
      refuseUnusable(invitation);
      const current = await this.users.findIn(manager, user.id);
      if (!current?.emailVerified || current.emailNormalized !== invitation.emailNormalized) {
        throw new AppException('INVITATION_EMAIL_MISMATCH');
      }
      const organization = await this.organizations.findIn(manager, invitation.organizationId);
      if (!organization) throw invalidLink('invitation');
      const now = new Date();
      await manager
        .withRepository(this.invitations)
        .update({ id: invitation.id }, { acceptedAt: now });
      await this.join(manager, invitation, user.id, now);
      const ref = refOf(organization);
      const origin = { client };
      await this.events.publish(manager, {
        type: 'organization.invitation_accepted',
        data: { organization: ref, invitation: summary(invitation), userId: user.id },
        origin,
      });
      await this.events.publish(manager, {
        type: 'organization.member_added',
        data: { organization: ref, userId: user.id, role: invitation.role },
        origin,
      });
      return { organization, role: invitation.role };
    });
  }

  private async join(
    manager: EntityManager,
    invitation: OrganizationInvitation,
    userId: string,
    now: Date,
  ): Promise<void> {
    const { organizationId, role } = invitation;
    if (!(await this.memberships.add(manager, organizationId, userId, role, now))) {
      throw new AppException('ALREADY_MEMBER', { message: 'You are a member already' });
    }
  }
}

function pending() {
  return { acceptedAt: IsNull(), withdrawnAt: IsNull() };
}

function summary(invitation: OrganizationInvitation) {
  return { id: invitation.id, email: invitation.email, role: invitation.role };
}

/** 401 INVALID_TOKEN, with why when the service issued it. */
function refuseUnusable(
  invitation: OrganizationInvitation | null,
): asserts invitation is OrganizationInvitation {
  if (!invitation) throw invalidLink('invitation');
  if (invitation.acceptedAt) throw invalidLink('invitation', 'used');
  if (invitation.withdrawnAt) throw invalidLink('invitation', 'withdrawn');
  if (invitation.expiresAt.getTime() <= Date.now()) throw invalidLink('invitation', 'expired');
}
