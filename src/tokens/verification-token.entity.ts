import { Column, Entity, PrimaryColumn } from 'typeorm';

export type TokenPurpose =
  'email_verification' | 'password_reset' | 'email_change' | 'email_change_undo';

/**
 * A single-use emailed token, tagged with its purpose so a reset token can never verify an email
 * or the other way round. The id is the token's SHA-256; the token itself is never stored.
 */
@Entity({ name: 'verification_tokens' })
export class VerificationToken {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  id!: string;

  @Column({ name: 'user_id', type: 'varchar', length: 32 })
  userId!: string;

  @Column({ type: 'varchar', length: 32 })
  purpose!: TokenPurpose;

  @Column({ name: 'created_at', type: 'datetime' })
  createdAt!: Date;

  @Column({ name: 'expires_at', type: 'datetime' })
  expiresAt!: Date;

  @Column({ name: 'used_at', type: 'datetime', nullable: true })
  usedAt!: Date | null;

  /**
   * The address an `email_change` token moves the account to once used, or the one an
   * `email_change_undo` token moves it back to; null for the others.
   */
  @Column({ name: 'new_email', type: 'varchar', length: 254, nullable: true })
  newEmail!: string | null;
}
