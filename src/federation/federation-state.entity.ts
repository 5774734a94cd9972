import { Column, Entity, PrimaryColumn } from 'typeorm';

/** `reauth`: a fresh sign-in that renews a signed-in session's `auth_time` (step-up). */
export type FlowPurpose = 'sign_in' | 'link' | 'reauth';

/**
 * A round trip through an identity provider in progress: the `state` handed to the provider (only
 * its SHA-256 is stored, as the id), bound to the browser that began it (the SHA-256 of its flow
 * cookie), with the PKCE verifier and the nonce the answer must match. Used once, then deleted.
 */
@Entity({ name: 'federation_states' })
export class FederationState {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  id!: string;

  @Column({ type: 'varchar', length: 32 })
  provider!: string;

  @Column({ type: 'varchar', length: 8 })
  purpose!: FlowPurpose;

  /** The signed-in user linking an identity or stepping up; null for a sign-in. */
  @Column({ name: 'user_id', type: 'varchar', length: 32, nullable: true })
  userId!: string | null;

  /**
   * The linking user's token version when the link began; null for a sign-in. Ending every
   * session (a reset, "sign out everywhere", an administrator) moves it, and a link still in
   * flight from one of those sessions is refused at the callback.
   */
  @Column({ name: 'token_version', type: 'int', nullable: true })
  tokenVersion!: number | null;

  /** The session (`sid`) a step-up renews; null otherwise. */
  @Column({ name: 'session_id', type: 'varchar', length: 36, nullable: true })
  sessionId!: string | null;

  @Column({ name: 'browser_hash', type: 'varchar', length: 64 })
  browserHash!: string;

  /**
   * Kept as given: it is worth nothing without the authorization code, which only the provider's
   * redirect to this browser carries, and it lives minutes.
   */
  @Column({ name: 'code_verifier', type: 'varchar', length: 128 })
  codeVerifier!: string;

  @Column({ type: 'varchar', length: 128 })
  nonce!: string;

  /** Checked against APP_ORIGINS when the flow began. */
  @Column({ name: 'redirect_to', type: 'varchar', length: 2048 })
  redirectTo!: string;

  @Column({ name: 'created_at', type: 'datetime' })
  createdAt!: Date;

  @Column({ name: 'expires_at', type: 'datetime' })
  expiresAt!: Date;
}
