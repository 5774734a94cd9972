import { Column, Entity, PrimaryColumn } from 'typeorm';

/** An organization: users belong to it through memberships (OrganizationMember). */
@Entity({ name: 'organizations' })
export class Organization {
  /** `org_` and random digits. */
  @PrimaryColumn({ type: 'varchar', length: 32 })
  id!: string;

  @Column({ type: 'varchar', length: 100 })
  name!: string;

  /** 3–48 of `a-z 0-9 -`, unique. */
  @Column({ type: 'varchar', length: 48 })
  slug!: string;

  @Column({ name: 'created_at', type: 'datetime' })
  createdAt!: Date;

  @Column({ name: 'updated_at', type: 'datetime' })
  updatedAt!: Date;
}
