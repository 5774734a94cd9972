import { ClientInfo } from '../common/http/request-context';
import { User } from '../users/user.entity';

/**
 * Every change the service makes, named `area.past_tense` (decisions.md, "Events, webhooks and
 * hooks"). This list is what webhooks subscribe to and what the OpenAPI document names; receivers
 * depend on it, so a name is added, never renamed.
 */
export const DOMAIN_EVENT_TYPES = [
  'user.created',
  'user.email_verified',
  'user.updated',
  'user.email_changed',
  'user.password_changed',
  'user.deleted',
  'session.created',
  'session.revoked',
  'mfa.enabled',
  'mfa.disabled',
  'passkey.added',
  'passkey.removed',
  'identity.linked',
  'identity.unlinked',
  'organization.created',
  'organization.updated',
  'organization.deleted',
  'organization.member_added',
  'organization.member_removed',
  'organization.member_role_changed',
  'organization.invitation_created',
  'organization.invitation_accepted',
  'webhook.test',
] as const;

export type DomainEventType = (typeof DOMAIN_EVENT_TYPES)[number];

/** Why a session ended (`data.reason` of `session.revoked`). */
export type SessionEndReason =
  | 'logout'
  | 'ended_elsewhere'
  | 'reuse_detected'
  | 'expired'
  | 'password_changed'
  | 'email_changed'
  | 'account_disabled'
  | 'account_deleted'
  | 'admin'
  | 'identities_unlinked';

/** The session an event concerns: its id (the tokens' `sid`) and, when known, its `amr`. */
export interface SessionRef {
  id: string;
  amr?: string[];
}

/** An organization as events carry it. */
export interface OrganizationRef {
  id: string;
  name: string;
  slug: string;
}

/**
 * What each event carries, besides its type. `user` is the entity as it stands after the change
 * (for `user.deleted`, as it stood before): subscribers derive what they show from it (a webhook
 * shows it as `GET /users/me` does, never a hash or a secret).
 */
export interface DomainEventData {
  'user.created': { user: User; method: string };
  'user.email_verified': { user: User };
  /** `changes`: the fields that changed (`name`, `picture`, `username`, `role`, `disabled`). */
  'user.updated': { user: User; changes: string[] };
  'user.email_changed': { user: User; previousEmail: string; undone?: boolean };
  /**
   * `removed`: the first proof of the mailbox removed a password set before it. `session`: the
   * caller's new session, when the change gave one (every other ended).
   */
  'user.password_changed': {
    user: User;
    how: 'change' | 'reset' | 'admin_reset' | 'set' | 'removed';
    session?: Required<SessionRef>;
  };
  'user.deleted': { user: User };
  /** `provider`: the identity provider (AUTH_PROVIDERS' `id`) the sign-in went through, if one. */
  'session.created': { user: User; session: Required<SessionRef>; provider?: string };
  /**
   * One event per action: `sessions` lists every session the action ended. `everySession`: the
   * action ended all of the user's sessions and access tokens at once (a logout of every device).
   */
  'session.revoked': {
    userId: string;
    sessions: SessionRef[];
    reason: SessionEndReason;
    everySession?: boolean;
  };
  'mfa.enabled': { user: User };
  'mfa.disabled': { user: User };
  'passkey.added': { user: User; passkey: { id: string; name: string } };
  'passkey.removed': { user: User; passkey: { id: string; name: string } };
  /** `accountCreated`: the identity's first sign-in made the account (with `user.created`). */
  'identity.linked': {
    user: User;
    identity: { id: string; provider: string };
    accountCreated?: boolean;
  };
  'identity.unlinked': { user: User; identity: { id: string; provider: string } };
  'organization.created': { organization: OrganizationRef; userId: string };
  'organization.updated': { organization: OrganizationRef; changes: string[] };
  'organization.deleted': { organization: OrganizationRef };
  'organization.member_added': { organization: OrganizationRef; userId: string; role: string };
  'organization.member_removed': { organization: OrganizationRef; userId: string };
  'organization.member_role_changed': {
    organization: OrganizationRef;
    userId: string;
    role: string;
    previousRole: string;
  };
  'organization.invitation_created': {
    organization: OrganizationRef;
    invitation: { id: string; email: string; role: string };
  };
  'organization.invitation_accepted': {
    organization: OrganizationRef;
    invitation: { id: string; email: string; role: string };
    userId: string;
  };
  'webhook.test': { webhookId: string };
}

/**
 * Who made the change: the client (IP and user agent as `@Client()` reads them) and, when an
 * administrator acted on someone else's account, the administrator's id.
 */
export interface EventOrigin {
  client?: ClientInfo;
  actorId?: string | null;
}

export type DomainEvent = {
  [T in DomainEventType]: { type: T; data: DomainEventData[T]; origin?: EventOrigin };
}[DomainEventType];

export type DomainEventOf<T extends DomainEventType> = Extract<DomainEvent, { type: T }>;

/**
 * What the audit trail and the metrics record that is no change of state (a failed attempt, a
 * code mailed, a step-up): internal, carried by the same bus to its own subscribers, and never
 * delivered to webhooks. Named `area.past_tense` as the events are; a name may be added freely.
 */
export const SECURITY_SIGNAL_TYPES = [
  'login.failed',
  'password_reset.requested',
  'email_change.requested',
  'mfa.failed',
  'mfa.recovery_codes_generated',
  'mfa.recovery_code_used',
  'session.reauthenticated',
  'passkey.renamed',
  'passkey.failed',
  'passkey.counter_rejected',
  'email_code.requested',
  'email_code.failed',
  'federation.failed',
  // The first proof of an account's mailbox (a link followed, a mailed code), inside its change.
  'mailbox.first_proven',
] as const;

export type SecuritySignalType = (typeof SECURITY_SIGNAL_TYPES)[number];

/**
 * `userId`: the account concerned, null when none is known (a failed login with an unknown
 * address); `user`, when the publisher holds it (a notice needs the address); `sessionId`: the
 * session it concerns, if one (a step-up).
 */
export interface SecuritySignal {
  type: SecuritySignalType;
  userId: string | null;
  user?: User;
  sessionId?: string;
  origin?: EventOrigin;
}
