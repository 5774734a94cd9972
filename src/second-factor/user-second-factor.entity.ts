import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A user's second factor: their TOTP secret, sealed (SecretBox), and its state. */
@Entity({ name: 'user_mfa' })
export class UserSecondFactor {
  @PrimaryColumn({ name: 'user_id', type: 'varchar', length: 32 })
  userId!: string;

  /** The secret of the switched-on TOTP factor, sealed; null while it is off. */
  @Column({ name: 'totp_secret', type: 'varchar', length: 255, nullable: true })
  totpSecret!: string | null;

  @Column({ name: 'totp_enabled_at', type: 'datetime', nullable: true })
  totpEnabledAt!: Date | null;

  /** The time step of the last code accepted: a code of that step or an earlier one is refused. */
  @Column({ name: 'totp_last_step', type: 'int', nullable: true })
  totpLastStep!: number | null;

  /** An enrolment waiting for its first code, sealed; a new enrolment replaces it. */
  @Column({ name: 'pending_secret', type: 'varchar', length: 255, nullable: true })
  pendingSecret!: string | null;

  @Column({ name: 'pending_at', type: 'datetime', nullable: true })
  pendingAt!: Date | null;

  @Column({ name: 'updated_at', type: 'datetime' })
  updatedAt!: Date;
}
