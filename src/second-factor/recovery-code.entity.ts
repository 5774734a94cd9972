import { Column, Entity, PrimaryColumn } from 'typeorm';

/** One single-use recovery code: only its SHA-256 is stored. */
@Entity({ name: 'mfa_recovery_codes' })
export class RecoveryCode {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  id!: string;

  @Column({ name: 'user_id', type: 'varchar', length: 32 })
  userId!: string;

  @Column({ name: 'created_at', type: 'datetime' })
  createdAt!: Date;

  @Column({ name: 'used_at', type: 'datetime', nullable: true })
  usedAt!: Date | null;
}
