import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * The second step a login (by password, a code by email or a provider) of a user with a second factor
 * leaves pending: single use, short-lived, and only its SHA-256 stored. It is good only while the
 * user's token version is the one it was issued under: a logout or a password reset since voids
 * it.
 */
@Entity({ name: 'mfa_challenges' })
export class SecondFactorChallenge {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  id!: string;

  @Column({ name: 'user_id', type: 'varchar', length: 32 })
  userId!: string;

  /**
   * What the first step proved: its `amr` as its way in registered it, comma-separated (`pwd`,
   * `otp` for a mailed code, `fed`).
   */
  @Column({ name: 'first_factor', type: 'varchar', length: 8, default: 'pwd' })
  firstFactor!: string;

  /** The identity provider the first step went through (AUTH_PROVIDERS' id), if one. */
  @Column({ type: 'varchar', length: 32, nullable: true })
  provider!: string | null;

  @Column({ name: 'token_version', type: 'int' })
  tokenVersion!: number;

  @Column({ name: 'created_at', type: 'datetime' })
  createdAt!: Date;

  @Column({ name: 'expires_at', type: 'datetime' })
  expiresAt!: Date;

  @Column({ name: 'used_at', type: 'datetime', nullable: true })
  usedAt!: Date | null;
}
