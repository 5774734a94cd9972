import { Column, Entity, PrimaryColumn } from 'typeorm';

/** Every account starts as `user`; `admin` is for the management endpoints built on UsersService. */
export const ROLES = ['user', 'admin'] as const;
export type Role = (typeof ROLES)[number];
export const USER_ROLE: Role = 'user';

@Entity({ name: 'users' })
export class User {
  /** `user_` and random digits: not guessable from another id. */
  @PrimaryColumn({ type: 'varchar', length: 32 })
  id!: string;

  /** As the user typed it (trimmed, NFC); mail goes to this stored address, never a typed one. */
  @Column({ type: 'varchar', length: 254 })
  email!: string;

  /** Lower-cased form, unique: the case-insensitive identity decided in code, not by a collation. */
  @Column({ name: 'email_normalized', type: 'varchar', length: 254 })
  emailNormalized!: string;

  @Column({ type: 'varchar', length: 32 })
  username!: string;

  @Column({ name: 'username_normalized', type: 'varchar', length: 32 })
  usernameNormalized!: string;

  /** A display name (trimmed, NFC, at most 100 characters); null when the user set none. */
  @Column({ type: 'varchar', length: 100, nullable: true })
  name!: string | null;

  /** An https URL of the user's picture (never uploaded here); null when none. */
  @Column({ type: 'varchar', length: 2048, nullable: true })
  picture!: string | null;

  /** Null for an account created by an identity provider until its owner sets a password. */
  @Column({ name: 'password_hash', type: 'varchar', length: 60, nullable: true })
  passwordHash!: string | null;

  @Column({ type: 'varchar', length: 16 })
  role!: string;

  @Column({ name: 'email_verified', type: 'boolean' })
  emailVerified!: boolean;

  @Column({ name: 'verified_at', type: 'datetime', nullable: true })
  verifiedAt!: Date | null;

  /** Every access token carries the version it was issued under; bumping it revokes them all. */
  @Column({ name: 'token_version', type: 'int' })
  tokenVersion!: number;

  /** Set by an administrator: the account cannot log in or refresh, its tokens are refused. */
  @Column({ name: 'disabled_at', type: 'datetime', nullable: true })
  disabledAt!: Date | null;

  @Column({ name: 'created_at', type: 'datetime' })
  createdAt!: Date;

  @Column({ name: 'updated_at', type: 'datetime' })
  updatedAt!: Date;
}

/**
 * An account without a password (created by an identity provider) has only its other ways in.
 * Here, by the column, for every feature that counts an account's ways in (passkeys, linked
 * identities) without one depending on another.
 */
export function hasPassword(user: Pick<User, 'passwordHash'>): boolean {
  return Boolean(user.passwordHash);
}
