import { Injectable } from '@nestjs/common';
import { randomInt } from 'node:crypto';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { AppException } from '../common/errors/app.exception';
import { ClientInfo } from '../common/http/request-context';
import { Database } from '../database/database.service';
import { isUniqueViolation } from '../database/database-errors';
import { OrganizationRef } from '../events/domain-event.catalogue';
import { DomainEvents } from '../events/domain-events.service';
import { User } from '../users/user.entity';
import { UsersService } from '../users/users.service';
import { MembersPage } from './dto/members.query';
import { Memberships } from './memberships.service';
import { OrgRoleName } from './org-roles';
import { Organization } from './organization.entity';
import { OrganizationMember } from './organization-member.entity';
import { SessionOrganization } from './session-organization.entity';
import { newId } from './org-roles';
import { slugFrom } from './slug';

/** An organization and the caller's membership of it. */
export interface OrganizationWithRole {
  organization: Organization;
  role: OrgRoleName;
}

export const refOf = ({ id, name, slug }: Organization): OrganizationRef => ({ id, name, slug });

/**
 * The owner of organizations and organization_members: an organization is created with its
 * creator as owner, renamed, deleted (with its memberships, invitations and active-organization
 * choices, by cascade); members change role or leave. An organization keeps an owner: removing
 * or demoting the last one is 409 LAST_OWNER (the owners' rows are held while this is judged, so
 * two owners demoting each other at once cannot both succeed). Every change is an event.
 */
@Injectable()
export class OrganizationsService {
  constructor(
    @InjectRepository(Organization) private readonly organizations: Repository<Organization>,
    @InjectRepository(OrganizationMember) private readonly members: Repository<OrganizationMember>,
    @InjectRepository(SessionOrganization)
    private readonly sessionOrganizations: Repository<SessionOrganization>,
    private readonly database: Database,
    private readonly memberships: Memberships,
    private readonly events: DomainEvents,
    private readonly users: UsersService,
  ) {}

  /**
   * A slug given and taken is 409 ORGANIZATION_EXISTS; one derived from the name gets a short
   * random suffix until it is free (a few tries).
   */
  async create(
    userId: string,
    input: { name: string; slug?: string },
    client: ClientInfo,
  ): Promise<OrganizationWithRole> {
    const base = input.slug ?? slugFrom(input.name);
    for (let attempt = 0; ; attempt++) {
      const slug = attempt === 0 ? base : `${base.slice(0, 43)}-${randomInt(1000, 10000)}`;
      try {
        return await this.insert(userId, input.name, slug, client);
      } catch (error) {
        if (input.slug !== undefined || attempt === 3 || !(error instanceof AppException))
          throw error;
        if (error.code !== 'ORGANIZATION_EXISTS') throw error;
      }
    }
  }

  private async insert(
    userId: string,
    name: string,
    slug: string,
    client: ClientInfo,
  ): Promise<OrganizationWithRole> {
    const now = new Date();
    const organization: Organization = {
      id: newId('org'),
      name,
      slug,
      createdAt: now,
      updatedAt: now,
    };
    await this.uniqueSlug(() =>
      this.database.transaction(async (manager) => {
        await manager.withRepository(this.organizations).insert(organization);
        await manager
          .withRepository(this.members)
          .insert({ organizationId: organization.id, userId, role: 'owner', createdAt: now });
        const ref = refOf(organization);
        const origin = { client };
        await this.events.publish(manager, {
          type: 'organization.created',
          data: { organization: ref, userId },
          origin,
        });
        await this.events.publish(manager, {
          type: 'organization.member_added',
          data: { organization: ref, userId, role: 'owner' },
          origin,
        });
      }),
    );
    return { organization, role: 'owner' };
  }

  /** The user's organizations, oldest membership first. */
  async listOf(userId: string): Promise<OrganizationWithRole[]> {
    return this.database.run(async (manager) => {
      const rows = await manager.withRepository(this.members).find({
        where: { userId },
        order: { createdAt: 'ASC', organizationId: 'ASC' },
      });
      return this.withOrganizations(manager, rows);
    });
  }

  /** The memberships and their organizations, in the memberships' order. */
  async withOrganizations(
    manager: EntityManager,
    rows: OrganizationMember[],
  ): Promise<OrganizationWithRole[]> {
    const result: OrganizationWithRole[] = [];
    for (const row of rows) {
      const organization = await this.findIn(manager, row.organizationId);
      if (organization) result.push({ organization, role: row.role });
    }
    return result;
  }

  /** For a route whose guard found the caller's membership: the organization exists. */
  async get(id: string): Promise<Organization> {
    const organization = await this.organizations.findOneBy({ id });
    if (!organization) throw new AppException('ORGANIZATION_NOT_FOUND');
    return organization;
  }

  findIn(manager: EntityManager, id: string): Promise<Organization | null> {
    return manager.withRepository(this.organizations).findOneBy({ id });
  }

  /** `slug` only by an owner (checked by the caller); 409 ORGANIZATION_EXISTS when taken. */
  async update(
    id: string,
    changes: { name?: string; slug?: string },
    client: ClientInfo,
    actorId: string,
  ): Promise<Organization> {
    return this.uniqueSlug(() =>
      this.database.transaction(async (manager) => {
        const repository = manager.withRepository(this.organizations);
        const current = await repository.findOne({ where: { id }, lock: this.database.rowLock });
        if (!current) throw new AppException('ORGANIZATION_NOT_FOUND');
        const changed = (['name', 'slug'] as const).filter(
          (field) => changes[field] !== undefined && changes[field] !== current[field],
        );
        if (changed.length === 0) return current;
        const next = { ...current, ...changes, updatedAt: new Date() };
        await repository.update(
          { id },
          { name: next.name, slug: next.slug, updatedAt: next.updatedAt },
        );
        await this.events.publish(manager, {
          type: 'organization.updated',
          data: { organization: refOf(next), changes: [...changed] },
          origin: { client, actorId },
        });
        return next;
      }),
    );
  }

  /** The organization, its memberships, invitations and sessions' choices of it (cascade). */
  async delete(id: string, client: ClientInfo, actorId: string | null): Promise<void> {
    await this.database.transaction((manager) => this.deleteIn(manager, id, { client, actorId }));
  }

  private async deleteIn(
    manager: EntityManager,
    id: string,
    origin: { client?: ClientInfo; actorId?: string | null },
  ): Promise<void> {
    const organization = await manager
      .withRepository(this.organizations)
      .findOne({ where: { id }, lock: this.database.rowLock });
    if (!organization) throw new AppException('ORGANIZATION_NOT_FOUND');
    await manager.withRepository(this.organizations).delete({ id });
    await this.events.publish(manager, {
      type: 'organization.deleted',
      data: { organization: refOf(organization) },
      origin,
    });
  }

  /** The members and their accounts, in the order they joined: all of them, or one page. */
  async membersWithUsers(
    id: string,
    page?: MembersPage,
  ): Promise<Array<{ member: OrganizationMember; user: User }>> {
    return this.database.run(async (manager) => {
      const members = await manager.withRepository(this.members).find({
        where: { organizationId: id },
        order: { createdAt: 'ASC', userId: 'ASC' },
        ...(page ? { skip: (page.page - 1) * page.limit, take: page.limit } : {}),
      });
      const users = new Map(
        (
          await this.users.findManyIn(
            manager,
            members.map((member) => member.userId),
          )
        ).map((user) => [user.id, user]),
      );
      return members.flatMap((member) => {
        const user = users.get(member.userId);
        return user ? [{ member, user }] : [];
      });
    });
  }

  /**
   * `actor` (a member of at least `admin`, checked by the guard) gives `userId` a role. Only an
   * owner touches an owner, or makes one. The last owner cannot be demoted: 409 LAST_OWNER.
   */
  async setRole(
    id: string,
    actor: OrganizationMember,
    userId: string,
    role: OrgRoleName,
    client: ClientInfo,
  ): Promise<OrganizationMember> {
    return this.database.transaction(async (manager) => {
      const target = await this.lockMember(manager, id, userId);
      if (actor.role !== 'owner' && (target.role === 'owner' || role === 'owner')) {
        throw new AppException('FORBIDDEN', { message: 'Only an owner can change an owner' });
      }
      if (target.role === role) return target;
      if (target.role === 'owner') await this.keepAnOwner(manager, id);
      await manager.withRepository(this.members).update({ organizationId: id, userId }, { role });
      // Its sessions' next refresh reads the new role (ActiveOrganizations).
      await this.events.publish(manager, {
        type: 'organization.member_role_changed',
        data: {
          organization: refOf((await this.findIn(manager, id))!),
          userId,
          role,
          previousRole: target.role,
        },
        origin: { client, actorId: actor.userId },
      });
      return { ...target, role };
    });
  }

  /**
   * Removes `userId` from the organization: an admin removes a member or an admin, an owner
   * anyone, and anyone themselves (leaving). The last owner cannot go: 409 LAST_OWNER. The
   * sessions that chose the organization lose it (their next refresh carries none).
   */
  async removeMember(
    id: string,
    actor: OrganizationMember,
    userId: string,
    client: ClientInfo,
  ): Promise<void> {
    await this.database.transaction(async (manager) => {
      const target = await this.lockMember(manager, id, userId);
      const self = actor.userId === userId;
      if (
        !self &&
        (actor.role === 'member' || (target.role === 'owner' && actor.role !== 'owner'))
      ) {
        throw new AppException('FORBIDDEN');
      }
      if (target.role === 'owner') await this.keepAnOwner(manager, id);
      await this.deleteMember(manager, id, userId, { client, actorId: actor.userId });
    });
  }

  /**
   * An account's removal, in its transaction: it leaves every organization. An organization it
   * was the last owner of gets its oldest admin as owner; one without an admin is deleted.
   */
  async removeUser(manager: EntityManager, userId: string): Promise<void> {
    const rows = await manager.withRepository(this.members).find({
      where: { userId },
      lock: this.database.rowLock,
    });
    for (const row of rows) {
      if (row.role === 'owner' && (await this.ownersOf(manager, row.organizationId)).length <= 1) {
        const heir = await manager.withRepository(this.members).findOne({
          where: { organizationId: row.organizationId, role: 'admin' },
          order: { createdAt: 'ASC', userId: 'ASC' },
          lock: this.database.rowLock,
        });
        if (!heir) {
          await this.deleteIn(manager, row.organizationId, { actorId: null });
          continue;
        }
        await manager
          .withRepository(this.members)
          .update({ organizationId: row.organizationId, userId: heir.userId }, { role: 'owner' });
        await this.events.publish(manager, {
          type: 'organization.member_role_changed',
          data: {
            organization: refOf((await this.findIn(manager, row.organizationId))!),
            userId: heir.userId,
            role: 'owner',
            previousRole: 'admin',
          },
        });
      }
      await this.deleteMember(manager, row.organizationId, userId, {});
    }
  }

  private async deleteMember(
    manager: EntityManager,
    id: string,
    userId: string,
    origin: { client?: ClientInfo; actorId?: string | null },
  ): Promise<void> {
    await manager.withRepository(this.members).delete({ organizationId: id, userId });
    await manager.withRepository(this.sessionOrganizations).delete({ organizationId: id, userId });
    await this.events.publish(manager, {
      type: 'organization.member_removed',
      data: { organization: refOf((await this.findIn(manager, id))!), userId },
      origin,
    });
  }

  private async lockMember(
    manager: EntityManager,
    id: string,
    userId: string,
  ): Promise<OrganizationMember> {
    const target = await this.memberships.findIn(manager, id, userId, true);
    // Not a member: the same 404 a route of an organization gives for what does not exist.
    if (!target) {
      throw new AppException('ORGANIZATION_NOT_FOUND', {
        message: 'No such member of this organization exists',
      });
    }
    return target;
  }

  /** 409 LAST_OWNER unless another owner stays; the owners' rows are held meanwhile. */
  private async keepAnOwner(manager: EntityManager, id: string): Promise<void> {
    if ((await this.ownersOf(manager, id)).length <= 1) throw new AppException('LAST_OWNER');
  }

  private ownersOf(manager: EntityManager, id: string): Promise<OrganizationMember[]> {
    return manager.withRepository(this.members).find({
      where: { organizationId: id, role: 'owner' },
      lock: this.database.rowLock,
    });
  }

  private async uniqueSlug<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (isUniqueViolation(error)) throw new AppException('ORGANIZATION_EXISTS');
      throw error;
    }
  }
}
