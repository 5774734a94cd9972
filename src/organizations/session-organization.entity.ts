import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * A session's active organization: its access tokens carry `org_id` and `org_role` (the role read
 * from the membership at each issue). Keyed by the session family, the tokens' `sid`.
 */
@Entity({ name: 'session_organizations' })
export class SessionOrganization {
  @PrimaryColumn({ name: 'family_id', type: 'varchar', length: 36 })
  familyId!: string;

  @Column({ name: 'user_id', type: 'varchar', length: 32 })
  userId!: string;

  @Column({ name: 'organization_id', type: 'varchar', length: 32 })
  organizationId!: string;

  @Column({ name: 'created_at', type: 'datetime' })
  createdAt!: Date;
}
