import { Column, Entity, PrimaryColumn } from 'typeorm';
import { OrgRoleName } from './org-roles';

/** A user's membership of an organization, with its role as stored (checked on every route). */
@Entity({ name: 'organization_members' })
export class OrganizationMember {
  @PrimaryColumn({ name: 'organization_id', type: 'varchar', length: 32 })
  organizationId!: string;

  @PrimaryColumn({ name: 'user_id', type: 'varchar', length: 32 })
  userId!: string;

  @Column({ type: 'varchar', length: 16 })
  role!: OrgRoleName;

  /** When the user joined. */
  @Column({ name: 'created_at', type: 'datetime' })
  createdAt!: Date;
}
