// The administration routes (`/admin/users`, `/admin/webhooks`). Reached as `auth.admin` once `admin()` is among the
// client's plugins.
import type { AuthClientPlugin, SessionEngine } from './plugin.js';
import type { DataEnvelope, MessageEnvelope, VerifiedUser } from './types.js';

/** A user as administrators see it. */
export interface AdminUser extends VerifiedUser {
  disabled: boolean;
  /** ISO 8601; null while the account is enabled. */
  disabled_at: string | null;
  /** Two-step sign-in (an authenticator app) is on; `admin.resetSecondFactor` switches it off. */
  two_factor: boolean;
}

export interface UserPage {
  users: AdminUser[];
  /** The page answered, from 1; null for a page asked for by `cursor`. */
  page: number | null;
  page_size: number;
  /** Users matching the search, counted up to 10,000: a lower bound when `total_exact` is false. */
  total: number;
  total_exact: boolean;
  /** Give it as `cursor` for the next page; null on the last page. */
  next_cursor: string | null;
}

export interface UserQuery {
  /** The beginning of an email or username, matched literally and case-insensitively. */
  search?: string;
  /** From 1; fine for the first pages, slow deep into a large list (use `cursor`). */
  page?: number;
  /** The `next_cursor` of the page before: any page as fast as the first. Not with `page`. */
  cursor?: string;
  /** 1 to 100; 20 by default. */
  pageSize?: number;
}

type UserResult = DataEnvelope<{ user: AdminUser }>;

/** A webhook endpoint (docs/webhooks.md). */
export interface WebhookEndpoint {
  id: string;
  url: string;
  /** Event names, or `["*"]` for all of them. */
  events: string[];
  /** False: nothing is queued for it nor sent. */
  enabled: boolean;
  description: string | null;
  /** ISO 8601. */
  created_at: string;
}

/** The answer that made an endpoint: its `whsec_` secret, which no other answer shows. */
export interface NewWebhookEndpoint extends WebhookEndpoint {
  secret: string;
}

export interface WebhookInput {
  /** In production `https://` and a public address (docs/webhooks.md, "Addresses"). */
  url: string;
  events: string[];
  description?: string | null;
}

export type WebhookChange = Partial<WebhookInput> & { enabled?: boolean };

export type WebhookDeliveryStatus = 'pending' | 'delivered' | 'failed';

/** One event for one endpoint; `id` is its `webhook-id` header, the same on every attempt. */
export interface WebhookDelivery {
  id: string;
  event_id: string;
  type: string;
  status: WebhookDeliveryStatus;
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  /** ISO 8601, pending deliveries only. */
  next_attempt_at: string | null;
  created_at: string;
}

/** `createAuthClient({ baseUrl, plugins: [admin()] })`, then `auth.admin.listUsers()`. */
export const admin = (): AuthClientPlugin<'admin', AdminClient> => ({
  id: 'admin',
  create: (engine) => new AdminClient(engine),
});

/**
 * The administration routes (`/admin/users`), for a signed-in user with `role: admin`; anyone
 * else gets `403 FORBIDDEN`. Every one needs a recent sign-in: `403 REAUTHENTICATION_REQUIRED`
 * until `auth.reauthenticate(…)`.
 */
export class AdminClient {
  constructor(private readonly engine: SessionEngine) {}

  /**
   * Newest first, then by id; `search` matches the beginning of an email or username literally.
   * Page on with `cursor: page.data.next_cursor` until it is null: each user once, even while
   * others register, and a deep page as fast as the first.
   */
  listUsers(query: UserQuery = {}): Promise<DataEnvelope<UserPage>> {
    const params = new URLSearchParams();
    if (query.search !== undefined) params.set('search', query.search);
    if (query.page !== undefined) params.set('page', String(query.page));
    if (query.cursor !== undefined) params.set('cursor', query.cursor);
    if (query.pageSize !== undefined) params.set('pageSize', String(query.pageSize));
    const suffix = params.size > 0 ? `?${params.toString()}` : '';
    return this.engine.authed('GET', `/admin/users${suffix}`);
  }

  getUser(id: string): Promise<UserResult> {
    return this.engine.authed('GET', user(id));
  }

  setRole(id: string, role: AdminUser['role']): Promise<UserResult> {
    return this.engine.authed('PATCH', `${user(id)}/role`, { role });
  }

  /** The account can no longer log in or refresh, and its tokens stop working at once. */
  disable(id: string): Promise<UserResult> {
    return this.engine.authed('POST', `${user(id)}/disable`);
  }

  enable(id: string): Promise<UserResult> {
    return this.engine.authed('POST', `${user(id)}/enable`);
  }

  /** Every session and access token of the user, as a logout on all devices. */
  endSessions(id: string): Promise<MessageEnvelope> {
    return this.engine.authed('POST', `${user(id)}/sessions/end`);
  }

  sendPasswordReset(id: string, input: { applicationUrl?: string } = {}): Promise<MessageEnvelope> {
    return this.engine.authed('POST', `${user(id)}/password-reset`, input);
  }

  /**
   * Switches the user's two-step sign-in off, for someone who lost both the authenticator app
   * and the recovery codes: the password alone signs in again. The user is mailed; `400
   * VALIDATION_ERROR` when it is off.
   */
  resetSecondFactor(id: string): Promise<UserResult> {
    return this.engine.authed('DELETE', `${user(id)}/mfa`);
  }

  deleteUser(id: string): Promise<MessageEnvelope> {
    return this.engine.authed('DELETE', user(id));
  }

  /** A new webhook endpoint; keep `data.webhook.secret`, it is never shown again. */
  createWebhook(input: WebhookInput): Promise<DataEnvelope<{ webhook: NewWebhookEndpoint }>> {
    return this.engine.authed('POST', '/admin/webhooks', input);
  }

  listWebhooks(): Promise<DataEnvelope<{ webhooks: WebhookEndpoint[] }>> {
    return this.engine.authed('GET', '/admin/webhooks');
  }

  updateWebhook(
    id: string,
    change: WebhookChange,
  ): Promise<DataEnvelope<{ webhook: WebhookEndpoint }>> {
    return this.engine.authed('PATCH', webhook(id), change);
  }

  deleteWebhook(id: string): Promise<MessageEnvelope> {
    return this.engine.authed('DELETE', webhook(id));
  }

  /** A new secret, shown once; the previous one keeps signing beside it for 24 hours. */
  rotateWebhookSecret(id: string): Promise<DataEnvelope<{ secret: string }>> {
    return this.engine.authed('POST', `${webhook(id)}/rotate-secret`);
  }

  /** Queues a `webhook.test` event for this endpoint only. */
  testWebhook(id: string): Promise<MessageEnvelope> {
    return this.engine.authed('POST', `${webhook(id)}/test`);
  }

  /** The newest deliveries first (100 at most), optionally of one status. */
  listWebhookDeliveries(
    id: string,
    status?: WebhookDeliveryStatus,
  ): Promise<DataEnvelope<{ deliveries: WebhookDelivery[] }>> {
    const suffix = status ? `?status=${encodeURIComponent(status)}` : '';
    return this.engine.authed('GET', `${webhook(id)}/deliveries${suffix}`);
  }

  /** Sends a delivery again with the same `webhook-id` (a failed one, or a replay). */
  retryWebhookDelivery(
    id: string,
    deliveryId: string,
  ): Promise<DataEnvelope<{ delivery: WebhookDelivery }>> {
    return this.engine.authed(
      'POST',
      `${webhook(id)}/deliveries/${encodeURIComponent(deliveryId)}/retry`,
    );
  }
}

const user = (id: string) => `/admin/users/${encodeURIComponent(id)}`;
const webhook = (id: string) => `/admin/webhooks/${encodeURIComponent(id)}`;
