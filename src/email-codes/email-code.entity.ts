import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * What a mailed code is for: signing in (with its link), or a step-up of a session already signed
 * in (`POST /auth/reauthenticate`, no link). One is never accepted for the other.
 */
export type EmailCodePurpose = 'sign_in' | 'reauthentication';

/**
 * A mailed sign-in code and its link: one row, so using either uses both. The id is the link
 * token's SHA-256; the code is kept only as a keyed hash (EmailCodes), never in plain form.
 */
@Entity({ name: 'email_codes' })
export class EmailCode {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  id!: string;

  @Column({ name: 'user_id', type: 'varchar', length: 32 })
  userId!: string;

  @Column({ type: 'varchar', length: 16, default: 'sign_in' })
  purpose!: EmailCodePurpose;

  @Column({ name: 'code_hash', type: 'varchar', length: 64 })
  codeHash!: string;

  /** Wrong codes typed against it; at EMAIL_CODE_ATTEMPTS it is dead. */
  @Column({ type: 'int', default: 0 })
  attempts!: number;

  @Column({ name: 'created_at', type: 'datetime' })
  createdAt!: Date;

  @Column({ name: 'expires_at', type: 'datetime' })
  expiresAt!: Date;

  @Column({ name: 'used_at', type: 'datetime', nullable: true })
  usedAt!: Date | null;
}
