import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { Database } from '../database/database.service';
import { Organization } from './organization.entity';
import { OrganizationMember } from './organization-member.entity';
import { OrganizationWithRole, OrganizationsService } from './organizations.service';

/** `%`, `_` and the escape itself taken literally in a LIKE pattern (`!`: no backslash rules). */
const escapeLike = (text: string) => text.replace(/[!%_]/g, (c) => `!${c}`);

/** The administrators' view of organizations: all of them, paged and searched. */
@Injectable()
export class AdminOrganizations {
  constructor(
    @InjectRepository(Organization) private readonly organizations: Repository<Organization>,
    @InjectRepository(OrganizationMember) private readonly members: Repository<OrganizationMember>,
    private readonly database: Database,
    private readonly service: OrganizationsService,
  ) {}

  async list(
    search: string,
    page: number,
    pageSize: number,
  ): Promise<{ items: Array<{ organization: Organization; members: number }>; total: number }> {
    return this.database.run(async (manager) => {
      const query = manager.withRepository(this.organizations).createQueryBuilder('o');
      if (search) {
        const prefix = `${escapeLike(search.toLowerCase())}%`;
        query.where("(LOWER(o.name) LIKE :prefix ESCAPE '!' OR o.slug LIKE :prefix ESCAPE '!')", {
          prefix,
        });
      }
      const [rows, total] = await query
        .orderBy('o.created_at', 'DESC')
        .addOrderBy('o.id', 'DESC')
        .skip((page - 1) * pageSize)
        .take(pageSize)
        .getManyAndCount();
      const items = [];
      for (const organization of rows) {
        const members = await manager
          .withRepository(this.members)
          .countBy({ organizationId: organization.id });
        items.push({ organization, members });
      }
      return { items, total };
    });
  }

  ofUser(userId: string): Promise<OrganizationWithRole[]> {
    return this.service.listOf(userId);
  }
}
