// Organizations: the user's own, their members and invitations, and the session's active one.
// Reached as `auth.organizations` once `organizations()` is among the client's plugins.
import type { AuthClientPlugin, SessionEngine } from './plugin.js';
import type { DataEnvelope, MessageEnvelope, SignedInResult } from './types.js';

/** `owner` (everything), `admin` (members, invitations, the name; not owners), `member` (reads). */
export type OrganizationRole = 'owner' | 'admin' | 'member';

/** An organization as one of its members sees it. */
export interface Organization {
  id: string;
  name: string;
  slug: string;
  /** The caller's role in it. */
  role: OrganizationRole;
  /** ISO 8601. */
  created_at: string;
}

export interface OrganizationMember {
  user_id: string;
  email: string;
  username: string;
  role: OrganizationRole;
  /** ISO 8601. */
  joined_at: string;
}

/** An open invitation; its token travels only in the mail. */
export interface OrganizationInvitation {
  id: string;
  email: string;
  role: OrganizationRole;
  /** ISO 8601: seven days after it was made. */
  expires_at: string;
}

export interface OrganizationInput {
  name: string;
  /** 3 to 48 of `a-z 0-9 -`; derived from the name when left out. `409 ORGANIZATION_EXISTS`. */
  slug?: string;
}

export interface InvitationInput {
  email: string;
  role: OrganizationRole;
  /** Where the mailed link points (with `invitation=TOKEN`); its origin must be in `APP_ORIGINS`. */
  applicationUrl?: string;
}

type OrganizationResult = DataEnvelope<{ organization: Organization }>;

/** `createAuthClient({ baseUrl, plugins: [organizations()] })`, then `auth.organizations.list()`. */
export const organizations = (): AuthClientPlugin<'organizations', OrganizationsClient> => ({
  id: 'organizations',
  create: (engine) => new OrganizationsClient(engine),
});

/**
 * The routes of `/organizations`. A non-member gets `404 ORGANIZATION_NOT_FOUND` from every route
 * of an organization, and a role short of a route's `403 FORBIDDEN`.
 */
export class OrganizationsClient {
  constructor(private readonly engine: SessionEngine) {}

  /** A new organization, the caller its owner. */
  create(input: OrganizationInput): Promise<OrganizationResult> {
    return this.engine.authed('POST', '/organizations', input);
  }

  /** The caller's organizations, each with the caller's role. */
  list(): Promise<DataEnvelope<{ organizations: Organization[] }>> {
    return this.engine.authed('GET', '/organizations');
  }

  get(id: string): Promise<OrganizationResult> {
    return this.engine.authed('GET', org(id));
  }

  /** The name (an admin) or the slug (an owner). */
  update(id: string, change: Partial<OrganizationInput>): Promise<OrganizationResult> {
    return this.engine.authed('PATCH', org(id), change);
  }

  /** An owner, with a recent sign-in (`403 REAUTHENTICATION_REQUIRED` until a step-up). */
  delete(id: string): Promise<MessageEnvelope> {
    return this.engine.authed('DELETE', org(id));
  }

  listMembers(id: string): Promise<DataEnvelope<{ members: OrganizationMember[] }>> {
    return this.engine.authed('GET', `${org(id)}/members`);
  }

  /** `409 LAST_OWNER` for the last owner's demotion. */
  changeRole(
    id: string,
    userId: string,
    role: OrganizationRole,
  ): Promise<DataEnvelope<{ member: OrganizationMember }>> {
    return this.engine.authed('PATCH', member(id, userId), { role });
  }

  /** Removes a member; the caller's own id leaves the organization. */
  removeMember(id: string, userId: string): Promise<MessageEnvelope> {
    return this.engine.authed('DELETE', member(id, userId));
  }

  /** Mails a link to `applicationUrl` with `invitation=TOKEN`; `409 ALREADY_MEMBER`. */
  invite(
    id: string,
    input: InvitationInput,
  ): Promise<DataEnvelope<{ invitation: OrganizationInvitation }>> {
    return this.engine.authed('POST', `${org(id)}/invitations`, input);
  }

  /** The open invitations (admins). */
  listInvitations(id: string): Promise<DataEnvelope<{ invitations: OrganizationInvitation[] }>> {
    return this.engine.authed('GET', `${org(id)}/invitations`);
  }

  withdrawInvitation(id: string, invitationId: string): Promise<MessageEnvelope> {
    return this.engine.authed(
      'DELETE',
      `${org(id)}/invitations/${encodeURIComponent(invitationId)}`,
    );
  }

  /**
   * The mailed link's token, accepted by the signed-in account, whose verified address must be
   * the invited one (`403 INVITATION_EMAIL_MISMATCH`). A used, withdrawn or expired invitation is
   * `401 INVALID_TOKEN` with `linkRefusal`; it never ends the session.
   */
  accept(token: string): Promise<OrganizationResult> {
    return this.engine.authed('POST', '/invitations/accept', { token });
  }

  /**
   * Makes `id` the session's active organization (`null`: none). The service answers as a
   * refresh does: new cookies for the same session, whose access tokens carry `org_id` and
   * `org_role` from then on; every tab renews with them.
   */
  switch(id: string | null): Promise<SignedInResult> {
    return this.engine.renewSession('POST', '/auth/organization', { organization_id: id });
  }
}

const org = (id: string) => `/organizations/${encodeURIComponent(id)}`;
const member = (id: string, userId: string) => `${org(id)}/members/${encodeURIComponent(userId)}`;
