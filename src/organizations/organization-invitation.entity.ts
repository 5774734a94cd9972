import { Column, Entity, PrimaryColumn } from 'typeorm';
import { OrgRoleName } from './org-roles';

/** An invitation mailed to an address; only the SHA-256 of its token is stored. Single use. */
@Entity({ name: 'organization_invitations' })
export class OrganizationInvitation {
  /** `inv_` and random digits. */
  @PrimaryColumn({ type: 'varchar', length: 32 })
  id!: string;

  @Column({ name: 'organization_id', type: 'varchar', length: 32 })
  organizationId!: string;

  /** As typed by the inviter (trimmed); the mail goes here. */
  @Column({ type: 'varchar', length: 254 })
  email!: string;

  @Column({ name: 'email_normalized', type: 'varchar', length: 254 })
  emailNormalized!: string;

  @Column({ type: 'varchar', length: 16 })
  role!: OrgRoleName;

  @Column({ name: 'token_hash', type: 'varchar', length: 64 })
  tokenHash!: string;

  @Column({ name: 'invited_by', type: 'varchar', length: 32, nullable: true })
  invitedBy!: string | null;

  @Column({ name: 'created_at', type: 'datetime' })
  createdAt!: Date;

  @Column({ name: 'expires_at', type: 'datetime' })
  expiresAt!: Date;

  @Column({ name: 'accepted_at', type: 'datetime', nullable: true })
  acceptedAt!: Date | null;

  @Column({ name: 'withdrawn_at', type: 'datetime', nullable: true })
  withdrawnAt!: Date | null;
}
