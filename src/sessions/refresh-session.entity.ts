import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * One refresh token. Only the SHA-256 of its `jti` is stored, so the table cannot be used to mint
 * a token. Tokens rotated from one login share a `familyId`, revoked together on reuse.
 */
@Entity({ name: 'refresh_sessions' })
export class RefreshSession {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  id!: string;

  @Column({ name: 'user_id', type: 'varchar', length: 32 })
  userId!: string;

  @Column({ name: 'family_id', type: 'varchar', length: 36 })
  familyId!: string;

  @Column({ name: 'created_at', type: 'datetime' })
  createdAt!: Date;

  @Column({ name: 'expires_at', type: 'datetime' })
  expiresAt!: Date;

  /** Set when this token was exchanged for its successor. */
  @Column({ name: 'rotated_at', type: 'datetime', nullable: true })
  rotatedAt!: Date | null;

  @Column({ name: 'revoked_at', type: 'datetime', nullable: true })
  revokedAt!: Date | null;

  /**
   * When the session (the family) began: its login, from which SESSION_MAX_AGE counts. Written
   * to every row rotated from it, since older rows are purged. The migration that added it gave
   * older rows their own `created_at`; null only in a row a version without the column wrote
   * since, whose session is then counted from that row's `created_at` (SessionLifetime).
   */
  @Column({ name: 'started_at', type: 'datetime', nullable: true })
  startedAt!: Date | null;

  /** The login's client IP, copied forward like `startedAt`. */
  @Column({ type: 'varchar', length: 45, nullable: true })
  ip!: string | null;

  /** The login's user agent (first 255 characters), copied forward like `startedAt`. */
  @Column({ name: 'user_agent', type: 'varchar', length: 255, nullable: true })
  userAgent!: string | null;

  /**
   * When the session was last authenticated: its login, or a later reauthentication. The access
   * tokens' `auth_time`; copied forward like `startedAt`.
   */
  @Column({ name: 'auth_time', type: 'datetime', nullable: true })
  authTime!: Date | null;

  /** The methods that authenticated it (RFC 8176 names, comma-separated): the tokens' `amr`. */
  @Column({ type: 'varchar', length: 64, nullable: true })
  amr!: string | null;

  /**
   * Whether a module adds claims to the session's access tokens (set by the module, as POST
   * /auth/organization does): a renewal asks the modules only then. Null in rows from before the
   * column, which are asked. Copied forward like `startedAt`.
   */
  @Column({ name: 'module_claims', type: 'boolean', nullable: true })
  moduleClaims!: boolean | null;
}
