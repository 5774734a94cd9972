import { ApiProperty } from '@nestjs/swagger';
import { EMAIL_ADDRESS } from '../openapi/email-address.property';
import { User } from '../users/user.entity';
import { ORG_ROLES, OrgRoleName } from './org-roles';
import { OrganizationInvitation } from './organization-invitation.entity';
import { OrganizationMember } from './organization-member.entity';
import { Organization } from './organization.entity';

const ORG_ID = { example: 'org_184467440737095516' };

/** An organization as one of its members sees it, with the member's role. */
export class OrganizationView {
  @ApiProperty(ORG_ID)
  id!: string;

  @ApiProperty({ example: 'Acme' })
  name!: string;

  @ApiProperty({ example: 'acme' })
  slug!: string;

  @ApiProperty({ enum: ORG_ROLES, description: "The caller's role in it." })
  role!: OrgRoleName;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;
}

export class OrganizationDataModel {
  @ApiProperty({ type: OrganizationView })
  organization!: OrganizationView;
}

export class OrganizationsDataModel {
  @ApiProperty({ type: [OrganizationView] })
  organizations!: OrganizationView[];
}

export class MemberView {
  @ApiProperty({ example: 'user_184467440737095516' })
  user_id!: string;

  @ApiProperty(EMAIL_ADDRESS)
  email!: string;

  @ApiProperty({ example: 'ann' })
  username!: string;

  @ApiProperty({ enum: ORG_ROLES })
  role!: OrgRoleName;

  @ApiProperty({ format: 'date-time' })
  joined_at!: string;
}

export class MembersDataModel {
  @ApiProperty({ type: [MemberView] })
  members!: MemberView[];
}

export class MemberDataModel {
  @ApiProperty({ type: MemberView })
  member!: MemberView;
}

export class InvitationView {
  @ApiProperty({ example: 'inv_184467440737095516' })
  id!: string;

  @ApiProperty(EMAIL_ADDRESS)
  email!: string;

  @ApiProperty({ enum: ORG_ROLES })
  role!: OrgRoleName;

  @ApiProperty({ format: 'date-time' })
  expires_at!: string;
}

export class InvitationDataModel {
  @ApiProperty({ type: InvitationView })
  invitation!: InvitationView;
}

export class InvitationsDataModel {
  @ApiProperty({ type: [InvitationView] })
  invitations!: InvitationView[];
}

export function organizationView(organization: Organization, role: OrgRoleName): OrganizationView {
  return {
    id: organization.id,
    name: organization.name,
    slug: organization.slug,
    role,
    created_at: organization.createdAt.toISOString(),
  };
}

export function memberView(member: OrganizationMember, user: User): MemberView {
  return {
    user_id: member.userId,
    email: user.email,
    username: user.username,
    role: member.role,
    joined_at: member.createdAt.toISOString(),
  };
}

export function invitationView(invitation: OrganizationInvitation): InvitationView {
  return {
    id: invitation.id,
    email: invitation.email,
    role: invitation.role,
    expires_at: invitation.expiresAt.toISOString(),
  };
}
