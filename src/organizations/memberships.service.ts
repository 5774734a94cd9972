import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { Database } from '../database/database.service';
import { isUniqueViolation } from '../database/database-errors';
import { OrgRoleName } from './org-roles';
import { OrganizationMember } from './organization-member.entity';

/**
 * Reads of organization_members: the guard of `@OrgRole()` asks for the caller's membership on
 * every organization route (by primary key), so a removal or a demotion applies at once.
 */
@Injectable()
export class Memberships {
  constructor(
    @InjectRepository(OrganizationMember) private readonly members: Repository<OrganizationMember>,
    private readonly database: Database,
  ) {}

  find(organizationId: string, userId: string): Promise<OrganizationMember | null> {
    return this.findIn(this.members.manager, organizationId, userId);
  }

  /** `manager`: the unit of work's, or the repository's own for a plain call. */
  findIn(
    manager: EntityManager,
    organizationId: string,
    userId: string,
    lock = false,
  ): Promise<OrganizationMember | null> {
    return manager.withRepository(this.members).findOne({
      where: { organizationId, userId },
      ...(lock ? { lock: this.database.rowLock } : {}),
    });
  }

  /**
   * Makes `userId` a member of the organization with `role`, in `manager`'s transaction: false
   * when they are one already (found, or inserted meanwhile by a concurrent join).
   */
  async add(
    manager: EntityManager,
    organizationId: string,
    userId: string,
    role: OrgRoleName,
    now = new Date(),
  ): Promise<boolean> {
    if (await this.findIn(manager, organizationId, userId)) return false;
    try {
      await manager
        .withRepository(this.members)
        .insert({ organizationId, userId, role, createdAt: now });
      return true;
    } catch (error) {
      if (isUniqueViolation(error)) return false;
      throw error;
    }
  }
}
