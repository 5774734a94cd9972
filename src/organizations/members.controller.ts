import { Body, Controller, Delete, Get, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiQuery, ApiTags } from '@nestjs/swagger';
import { Envelope, ok } from '../common/http/envelope';
import { Client, ClientInfo } from '../common/http/request-context';
import { RequestUser } from '../common/http/request-user.decorator';
import { ANY_BODY, ApiEnvelope, ApiErrors, JSON_BODY } from '../openapi/api-responses.decorator';
import { User } from '../users/user.entity';
import { CreateInvitationDto, SetMemberRoleDto } from './dto/member.dto';
import { MAX_MEMBERS_LIMIT, readMembersQuery } from './dto/members.query';
import { InvitationsService } from './invitations.service';
import { OrgMembership, OrgRole } from './org-role.decorator';
import { OrganizationMember } from './organization-member.entity';
import {
  InvitationDataModel,
  InvitationsDataModel,
  MemberDataModel,
  MembersDataModel,
  invitationView,
  memberView,
} from './organization.view';
import { OrganizationsService } from './organizations.service';

const USER_ID = ApiParam({ name: 'userId', description: "The member's user id." });
const CHANGE = ['FORBIDDEN_ORIGIN'] as const;

/**
 * An organization's members and invitations. Roles: `admin` manages members and invitations
 * (never an owner's, never making one), `owner` everything; any member may leave.
 */
@ApiTags('organizations')
@Controller('organizations/:orgId')
export class MembersController {
  constructor(
    private readonly organizations: OrganizationsService,
    private readonly invitations: InvitationsService,
  ) {}

  @Get('members')
  @OrgRole('member')
  @ApiOperation({
    operationId: 'listOrganizationMembers',
    summary: "An organization's members",
    description:
      'Every member with its role, in the order they joined. With `page` or `limit`, one page ' +
      `of that order: \`limit\` members (${MAX_MEMBERS_LIMIT} by default, at most ` +
      `${MAX_MEMBERS_LIMIT}) from page \`page\` (1 by default); a page shorter than \`limit\` is ` +
      'the last. A value out of range is 400 VALIDATION_ERROR.',
  })
  @ApiQuery({ name: 'page', required: false, schema: { type: 'integer', minimum: 1 } })
  @ApiQuery({
    name: 'limit',
    required: false,
    schema: { type: 'integer', minimum: 1, maximum: MAX_MEMBERS_LIMIT },
  })
  @ApiEnvelope(200, 'Members', { data: MembersDataModel })
  @ApiErrors('VALIDATION_ERROR')
  async members(
    @Param('orgId') orgId: string,
    @Query() query: Record<string, unknown>,
  ): Promise<Envelope<MembersDataModel>> {
    const page = readMembersQuery({ page: query.page, limit: query.limit });
    const members = await this.organizations.membersWithUsers(orgId, page);
    return ok('Members', { members: members.map(({ member, user }) => memberView(member, user)) });
  }

  @Patch('members/:userId')
  @OrgRole('admin')
  @USER_ID
  @ApiOperation({
    operationId: 'setOrganizationMemberRole',
    summary: "Change a member's role",
    description:
      "Applies at once to the organization's routes, and to the member's access tokens from " +
      "their session's next refresh. Only an owner changes an owner's role or makes an owner " +
      '(403 FORBIDDEN); demoting the last owner is 409 LAST_OWNER. 404 ORGANIZATION_NOT_FOUND ' +
      'for a user who is not a member.',
  })
  @ApiEnvelope(200, 'Role updated', { data: MemberDataModel })
  @ApiErrors('LAST_OWNER', ...CHANGE, ...JSON_BODY)
  async setRole(
    @Param('orgId') orgId: string,
    @Param('userId') userId: string,
    @OrgMembership() membership: OrganizationMember,
    @Body() body: SetMemberRoleDto,
    @Client() client: ClientInfo,
  ): Promise<Envelope<MemberDataModel>> {
    await this.organizations.setRole(orgId, membership, userId, body.role, client);
    const member = (await this.organizations.membersWithUsers(orgId)).find(
      (entry) => entry.member.userId === userId,
    )!;
    return ok('Role updated', { member: memberView(member.member, member.user) });
  }

  @Delete('members/:userId')
  @OrgRole('member')
  @USER_ID
  @ApiOperation({
    operationId: 'removeOrganizationMember',
    summary: 'Remove a member, or leave',
    description:
      'A member may remove itself (leaving); an admin removes members and admins, an owner ' +
      'anyone (403 FORBIDDEN otherwise). The last owner cannot go: 409 LAST_OWNER. Applies at ' +
      "once to the organization's routes; the member's sessions that had it active carry no " +
      'organization from their next refresh.',
  })
  @ApiEnvelope(200, 'Member removed')
  @ApiErrors('LAST_OWNER', 'FORBIDDEN', ...CHANGE, ...ANY_BODY)
  async remove(
    @Param('orgId') orgId: string,
    @Param('userId') userId: string,
    @OrgMembership() membership: OrganizationMember,
    @Client() client: ClientInfo,
  ): Promise<Envelope> {
    await this.organizations.removeMember(orgId, membership, userId, client);
    return ok('Member removed');
  }

  @Post('invitations')
  @OrgRole('admin')
  @ApiOperation({
    operationId: 'createOrganizationInvitation',
    summary: 'Invite someone by email',
    description:
      'Mails the address a link to `applicationUrl` (its origin must be in APP_ORIGINS) or to ' +
      'PUBLIC_URL, with `invitation=TOKEN`; the token works once, for seven days, and a newer ' +
      'invitation to the same address withdraws the older. Only an owner invites an owner (403 ' +
      "FORBIDDEN). A member's address is 409 ALREADY_MEMBER. Counted in the address's cap of " +
      'mails (MAIL_RECIPIENT_LIMIT per MAIL_RECIPIENT_WINDOW: 429 RATE_LIMITED); a mail that ' +
      'cannot be sent is 503 EMAIL_SERVICE_ERROR and the invitation is withdrawn.',
  })
  @ApiEnvelope(201, 'Invitation sent', { data: InvitationDataModel })
  @ApiErrors('ALREADY_MEMBER', 'EMAIL_SERVICE_ERROR', ...CHANGE, ...JSON_BODY)
  async invite(
    @Param('orgId') orgId: string,
    @RequestUser() user: User,
    @OrgMembership() membership: OrganizationMember,
    @Body() body: CreateInvitationDto,
    @Client() client: ClientInfo,
  ): Promise<Envelope<InvitationDataModel>> {
    const invitation = await this.invitations.invite(orgId, { membership, user }, body, client);
    return ok('Invitation sent', { invitation: invitationView(invitation) });
  }

  @Get('invitations')
  @OrgRole('admin')
  @ApiOperation({
    operationId: 'listOrganizationInvitations',
    summary: "An organization's open invitations",
    description: 'Neither accepted, withdrawn nor expired; oldest first.',
  })
  @ApiEnvelope(200, 'Invitations', { data: InvitationsDataModel })
  async listInvitations(@Param('orgId') orgId: string): Promise<Envelope<InvitationsDataModel>> {
    const invitations = await this.invitations.list(orgId);
    return ok('Invitations', { invitations: invitations.map(invitationView) });
  }

  @Delete('invitations/:invitationId')
  @OrgRole('admin')
  @ApiParam({ name: 'invitationId', description: 'The invitation id (`inv_` and digits).' })
  @ApiOperation({
    operationId: 'withdrawOrganizationInvitation',
    summary: 'Withdraw an invitation',
    description:
      'Its link answers 401 INVALID_TOKEN (`reason: withdrawn`) from then on. 404 ' +
      'ORGANIZATION_NOT_FOUND for an invitation that is not open.',
  })
  @ApiEnvelope(200, 'Invitation withdrawn')
  @ApiErrors(...CHANGE, ...ANY_BODY)
  async withdraw(
    @Param('orgId') orgId: string,
    @Param('invitationId') invitationId: string,
  ): Promise<Envelope> {
    await this.invitations.withdraw(orgId, invitationId);
    return ok('Invitation withdrawn');
  }
}
