import { Column, Entity, PrimaryColumn } from 'typeorm';

export const AUDIT_EVENT_TYPES = [
  'registered',
  'login_succeeded',
  'login_failed',
  'logout',
  'session_ended',
  'refresh_reuse_detected',
  'password_reset_requested',
  'password_changed',
  'email_verified',
  'profile_updated',
  'email_change_requested',
  'email_changed',
  // From the link in the notice to the old address: moved back, every session ended.
  'email_change_undone',
  // Administration (actor_id names the administrator; null for the operator's promote command).
  'role_changed',
  'account_disabled',
  'account_enabled',
  'sessions_ended',
  // By an administrator, or by the user (actor_id null).
  'account_deleted',
  // The second factor. `mfa_disabled` by an administrator names them as actor.
  'mfa_enabled',
  'mfa_disabled',
  'mfa_recovery_codes_generated',
  'mfa_recovery_code_used',
  'mfa_failed',
  'reauthenticated',
  // Passkeys. `passkey_counter_rejected`: a valid signature whose counter did not move forward,
  // the sign of a cloned authenticator; `passkey_failed`: any other refused ceremony of a known user.
  'passkey_registered',
  'passkey_renamed',
  'passkey_deleted',
  'passkey_failed',
  'passkey_counter_rejected',
  // Sign-in by a code by email: a code mailed, and a wrong code (or a dead link) sent back. A
  // right one is `login_succeeded`, as every sign-in is.
  'email_code_requested',
  'email_code_failed',
  // Identity providers. `federation_failed`: a provider's round trip refused (known user only
  // when linking).
  'identity_linked',
  'identity_unlinked',
  'federation_failed',
  // The first proof of an account's mailbox (a reset, the verification link, a mailed code)
  // unlinked the identities linked while its address was unproven (and ended its sessions).
  'unproven_identities_unlinked',
] as const;

export type AuditEventType = (typeof AUDIT_EVENT_TYPES)[number];

/** One security event. Rows are only ever inserted (see AuditTrail). */
@Entity({ name: 'audit_events' })
export class AuditEvent {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id!: string;

  @Column({ type: 'varchar', length: 40 })
  type!: AuditEventType;

  /** Null for a failed login with an email no account has. */
  @Column({ name: 'user_id', type: 'varchar', length: 32, nullable: true })
  userId!: string | null;

  /** The administrator who acted on `userId`; null when the user acted, or for an operator command. */
  @Column({ name: 'actor_id', type: 'varchar', length: 32, nullable: true })
  actorId!: string | null;

  /** The client IP as TRUST_PROXY lets the service see it. */
  @Column({ type: 'varchar', length: 45, nullable: true })
  ip!: string | null;

  @Column({ name: 'user_agent', type: 'varchar', length: 255, nullable: true })
  userAgent!: string | null;

  /** The session (refresh-token family, the access tokens' `sid`) the event ended, if one. */
  @Column({ name: 'session_id', type: 'varchar', length: 36, nullable: true })
  sessionId!: string | null;

  @Column({ name: 'created_at', type: 'datetime' })
  createdAt!: Date;
}
