import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * An account at an identity provider linked to a user: the provider's stable subject (`sub`,
 * GitHub's numeric id), never its email, names it; one per provider and user.
 */
@Entity({ name: 'user_identities' })
export class UserIdentity {
  @PrimaryColumn({ type: 'varchar', length: 32 })
  id!: string;

  @Column({ name: 'user_id', type: 'varchar', length: 32 })
  userId!: string;

  /** The provider's id in AUTH_PROVIDERS. */
  @Column({ type: 'varchar', length: 32 })
  provider!: string;

  @Column({ type: 'varchar', length: 255 })
  subject!: string;

  /** The address the provider gave when the identity was linked, shown on the account page. */
  @Column({ type: 'varchar', length: 254, nullable: true })
  email!: string | null;

  @Column({ name: 'created_at', type: 'datetime' })
  createdAt!: Date;
}
