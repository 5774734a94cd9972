import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * A login's first step (RFC 8176 names): the password, a one-time code by email, or an identity
 * provider's sign-in.
 */
export type FirstFactor = 'pwd' | 'otp' | 'fed';

/**
 * The second step a login (by password, a code by email or a provider) of a user with a second factor
 * leaves pending: single use, short-lived, and only its SHA-256 stored. It is good only while the
 * user's token version is the one it was issued under: a logout or a password reset since voids
 * it.
 */
@Entity({ name: 'mfa_challenges' })
export class MfaChallenge {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  id!: string;

  @Column({ name: 'user_id', type: 'varchar', length: 32 })
  userId!: string;

  /** What the first step proved: the password, a code mailed to the account, a provider. */
  @Column({ name: 'first_factor', type: 'varchar', length: 8, default: 'pwd' })
  firstFactor!: FirstFactor;

  @Column({ name: 'token_version', type: 'int' })
  tokenVersion!: number;

  @Column({ name: 'created_at', type: 'datetime' })
  createdAt!: Date;

  @Column({ name: 'expires_at', type: 'datetime' })
  expiresAt!: Date;

  @Column({ name: 'used_at', type: 'datetime', nullable: true })
  usedAt!: Date | null;
}
