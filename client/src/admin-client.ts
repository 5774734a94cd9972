import type { AdminUser, DataEnvelope, MessageEnvelope, UserPage, UserQuery } from './types.js';

/** A signed-in call: refreshed and retried once on 401, rejected with AuthError on failure. */
export type AuthedCall = <R extends MessageEnvelope = MessageEnvelope>(
  method: string,
  path: string,
  body?: unknown,
) => Promise<R>;

type UserResult = DataEnvelope<{ user: AdminUser }>;

/**
 * The administration routes (`/admin/users`), for a signed-in user with `role: admin`; anyone
 * else gets `403 FORBIDDEN`. Every one needs a recent sign-in: `403 REAUTHENTICATION_REQUIRED`
 * until `auth.reauthenticate(…)`. Reached as `auth.admin`.
 */
export class AdminClient {
  constructor(private readonly call: AuthedCall) {}

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
    return this.call('GET', `/admin/users${suffix}`);
  }

  getUser(id: string): Promise<UserResult> {
    return this.call('GET', user(id));
  }

  setRole(id: string, role: AdminUser['role']): Promise<UserResult> {
    return this.call('PATCH', `${user(id)}/role`, { role });
  }

  /** The account can no longer log in or refresh, and its tokens stop working at once. */
  disable(id: string): Promise<UserResult> {
    return this.call('POST', `${user(id)}/disable`);
  }

  enable(id: string): Promise<UserResult> {
    return this.call('POST', `${user(id)}/enable`);
  }

  /** Every session and access token of the user, as a logout on all devices. */
  endSessions(id: string): Promise<MessageEnvelope> {
    return this.call('POST', `${user(id)}/sessions/end`);
  }

  sendPasswordReset(id: string, input: { applicationUrl?: string } = {}): Promise<MessageEnvelope> {
    return this.call('POST', `${user(id)}/password-reset`, input);
  }

  /**
   * Switches the user's two-step sign-in off, for someone who lost both the authenticator app
   * and the recovery codes: the password alone signs in again. The user is mailed; `400
   * VALIDATION_ERROR` when it is off.
   */
  resetSecondFactor(id: string): Promise<UserResult> {
    return this.call('DELETE', `${user(id)}/mfa`);
  }

  deleteUser(id: string): Promise<MessageEnvelope> {
    return this.call('DELETE', user(id));
  }
}

const user = (id: string) => `/admin/users/${encodeURIComponent(id)}`;
