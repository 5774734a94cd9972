import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { Database } from '../database/database.service';
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
}
