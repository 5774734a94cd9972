import { DomainEvent, SecuritySignal, SecuritySignalType } from '../events/domain-event.catalogue';
import { AuditEventType } from './audit-event.entity';

/** One row the audit trail writes for an event: its type, account and session. */
export interface AuditRow {
  type: AuditEventType;
  userId: string | null;
  sessionId?: string | null;
}

/** null: no row of its own (what the signal sets off writes its own). */
const SIGNAL_ROWS: Record<SecuritySignalType, AuditEventType | null> = {
  'login.failed': 'login_failed',
  'password_reset.requested': 'password_reset_requested',
  'email_change.requested': 'email_change_requested',
  'mfa.failed': 'mfa_failed',
  'mfa.recovery_codes_generated': 'mfa_recovery_codes_generated',
  'mfa.recovery_code_used': 'mfa_recovery_code_used',
  'session.reauthenticated': 'reauthenticated',
  'passkey.renamed': 'passkey_renamed',
  'passkey.failed': 'passkey_failed',
  'passkey.counter_rejected': 'passkey_counter_rejected',
  'email_code.requested': 'email_code_requested',
  'email_code.failed': 'email_code_failed',
  'federation.failed': 'federation_failed',
  // The unlinking it sets off has its row (unproven_identities_unlinked); the proof, its event.
  'mailbox.first_proven': null,
};

export function auditRowsOfSignal(signal: SecuritySignal): AuditRow[] {
  const type = SIGNAL_ROWS[signal.type];
  return type ? [{ type, userId: signal.userId, sessionId: signal.sessionId }] : [];
}

/**
 * The trail's fine-grained types, as the services recorded them before the events: one row per
 * event, but one per session a logout elsewhere ended, and none for the sessions a change of
 * its own (a password, a deletion, a disabling) ended, which that change's row stands for.
 */
export function auditRowsOf(event: DomainEvent): AuditRow[] {
  switch (event.type) {
    case 'user.created':
      return [{ type: 'registered', userId: event.data.user.id }];
    case 'user.email_verified':
      return [{ type: 'email_verified', userId: event.data.user.id }];
    case 'user.updated': {
      const { user, changes } = event.data;
      if (changes.includes('role')) return [{ type: 'role_changed', userId: user.id }];
      if (changes.includes('disabled')) {
        return [
          { type: user.disabledAt ? 'account_disabled' : 'account_enabled', userId: user.id },
        ];
      }
      return [{ type: 'profile_updated', userId: user.id }];
    }
    case 'user.email_changed':
      return [
        {
          type: event.data.undone ? 'email_change_undone' : 'email_changed',
          userId: event.data.user.id,
        },
      ];
    case 'user.password_changed':
      return [
        {
          type: 'password_changed',
          userId: event.data.user.id,
          sessionId: event.data.session?.id,
        },
      ];
    case 'user.deleted':
      return [{ type: 'account_deleted', userId: event.data.user.id }];
    case 'session.created':
      return [
        { type: 'login_succeeded', userId: event.data.user.id, sessionId: event.data.session.id },
      ];
    case 'session.revoked':
      return revokedRows(event.data);
    case 'mfa.enabled':
      return [{ type: 'mfa_enabled', userId: event.data.user.id }];
    case 'mfa.disabled':
      return [{ type: 'mfa_disabled', userId: event.data.user.id }];
    case 'passkey.added':
      return [{ type: 'passkey_registered', userId: event.data.user.id }];
    case 'passkey.removed':
      return [{ type: 'passkey_deleted', userId: event.data.user.id }];
    case 'identity.linked':
      return [{ type: 'identity_linked', userId: event.data.user.id }];
    case 'identity.unlinked':
      return [{ type: 'identity_unlinked', userId: event.data.user.id }];
    default:
      return [];
  }
}

function revokedRows(data: Extract<DomainEvent, { type: 'session.revoked' }>['data']): AuditRow[] {
  const { userId, sessions } = data;
  switch (data.reason) {
    case 'logout':
      if (data.everySession) return [{ type: 'logout', userId }];
      return sessions.map((session) => ({ type: 'logout', userId, sessionId: session.id }));
    case 'ended_elsewhere':
      return sessions.map((session) => ({ type: 'session_ended', userId, sessionId: session.id }));
    case 'reuse_detected':
      return [{ type: 'refresh_reuse_detected', userId }];
    case 'admin':
      return [{ type: 'sessions_ended', userId }];
    case 'identities_unlinked':
      return [{ type: 'unproven_identities_unlinked', userId }];
    default:
      return [];
  }
}
