import { Column, Entity, PrimaryColumn } from 'typeorm';

/** `reauthentication`: a step-up of a signed-in session (`POST /auth/reauthenticate`). */
export const CEREMONIES = ['registration', 'sign_in', 'second_factor', 'reauthentication'] as const;
export type Ceremony = (typeof CEREMONIES)[number];

/**
 * A challenge that has been answered (WebAuthnChallenges carries open ones in the challenge
 * itself): only its SHA-256 is stored, until it expires, so that it is good for one answer.
 */
@Entity({ name: 'webauthn_challenges' })
export class WebAuthnChallenge {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  id!: string;

  @Column({ type: 'varchar', length: 16 })
  purpose!: Ceremony;

  /** Null for a passwordless sign-in, where the passkey names its user. */
  @Column({ name: 'user_id', type: 'varchar', length: 32, nullable: true })
  userId!: string | null;

  @Column({ name: 'created_at', type: 'datetime' })
  createdAt!: Date;

  @Column({ name: 'expires_at', type: 'datetime' })
  expiresAt!: Date;

  @Column({ name: 'used_at', type: 'datetime', nullable: true })
  usedAt!: Date | null;
}
