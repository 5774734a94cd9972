import { Body, Controller, Delete, Get, Param, Patch, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../auth/decorators/authenticated.decorator';
import { RecentlyAuthenticated } from '../auth/guards/second-factor.guard';
import { AppException } from '../common/errors/app.exception';
import { Envelope, ok } from '../common/http/envelope';
import { Client, ClientInfo } from '../common/http/request-context';
import { RequestUser } from '../common/http/request-user.decorator';
import {
  ApiEnvelope,
  ApiErrors,
  ANY_BODY,
  JSON_BODY,
  STORED,
} from '../openapi/api-responses.decorator';
import { User } from '../users/user.entity';
import { CreateOrganizationDto, UpdateOrganizationDto } from './dto/organization.dto';
import { OrgMembership, OrgRole } from './org-role.decorator';
import { OrganizationMember } from './organization-member.entity';
import {
  OrganizationDataModel,
  OrganizationsDataModel,
  organizationView,
} from './organization.view';
import { OrganizationsService } from './organizations.service';

type OrganizationEnvelope = Envelope<OrganizationDataModel>;

/**
 * Organizations of the signed-in user. Every route of one organization (`:orgId`) is for its
 * members, by the role stored now (`@OrgRole()`): 404 ORGANIZATION_NOT_FOUND to anyone else,
 * 403 FORBIDDEN to a weaker role.
 */
@ApiTags('organizations')
@Controller('organizations')
export class OrganizationsController {
  constructor(private readonly organizations: OrganizationsService) {}

  @Post()
  @Authenticated()
  @ApiOperation({
    operationId: 'createOrganization',
    summary: 'Create an organization',
    description:
      'The caller becomes its `owner`. `slug` is unique (409 ORGANIZATION_EXISTS when taken); ' +
      'left out, it is derived from the name (with a short suffix when that one is taken).',
  })
  @ApiEnvelope(201, 'Organization created', { data: OrganizationDataModel })
  @ApiErrors('ORGANIZATION_EXISTS', 'FORBIDDEN_ORIGIN', ...JSON_BODY, ...STORED)
  async create(
    @RequestUser() user: User,
    @Body() body: CreateOrganizationDto,
    @Client() client: ClientInfo,
  ): Promise<OrganizationEnvelope> {
    const { organization, role } = await this.organizations.create(user.id, body, client);
    return ok('Organization created', { organization: organizationView(organization, role) });
  }

  @Get()
  @Authenticated()
  @ApiOperation({
    operationId: 'listOrganizations',
    summary: "The caller's organizations",
    description: 'Every organization the caller is a member of, with its role, oldest first.',
  })
  @ApiEnvelope(200, 'Organizations', { data: OrganizationsDataModel })
  @ApiErrors(...STORED)
  async list(@RequestUser() user: User): Promise<Envelope<OrganizationsDataModel>> {
    const mine = await this.organizations.listOf(user.id);
    return ok('Organizations', {
      organizations: mine.map(({ organization, role }) => organizationView(organization, role)),
    });
  }

  @Get(':orgId')
  @OrgRole('member')
  @ApiOperation({
    operationId: 'getOrganization',
    summary: 'Read an organization',
    description: 'For its members, with their role.',
  })
  @ApiEnvelope(200, 'Organization', { data: OrganizationDataModel })
  async get(
    @Param('orgId') orgId: string,
    @OrgMembership() membership: OrganizationMember,
  ): Promise<OrganizationEnvelope> {
    const organization = await this.organizations.get(orgId);
    return ok('Organization', { organization: organizationView(organization, membership.role) });
  }

  @Patch(':orgId')
  @OrgRole('admin')
  @ApiOperation({
    operationId: 'updateOrganization',
    summary: "Change an organization's name or slug",
    description:
      'The name by an admin or an owner; the slug by an owner only (403 FORBIDDEN otherwise), ' +
      'unique (409 ORGANIZATION_EXISTS).',
  })
  @ApiEnvelope(200, 'Organization updated', { data: OrganizationDataModel })
  @ApiErrors('ORGANIZATION_EXISTS', 'FORBIDDEN_ORIGIN', ...JSON_BODY)
  async update(
    @Param('orgId') orgId: string,
    @OrgMembership() membership: OrganizationMember,
    @Body() body: UpdateOrganizationDto,
    @Client() client: ClientInfo,
  ): Promise<OrganizationEnvelope> {
    if (body.slug !== undefined && membership.role !== 'owner') {
      throw new AppException('FORBIDDEN', { message: 'Only an owner can change the slug' });
    }
    const organization = await this.organizations.update(orgId, body, client, membership.userId);
    return ok('Organization updated', {
      organization: organizationView(organization, membership.role),
    });
  }

  @Delete(':orgId')
  @OrgRole('owner')
  @RecentlyAuthenticated()
  @ApiOperation({
    operationId: 'deleteOrganization',
    summary: 'Delete an organization',
    description:
      'By an owner with a recent sign-in (STEP_UP_MAX_AGE; 403 REAUTHENTICATION_REQUIRED ' +
      'otherwise). Its memberships and invitations end with it, and sessions that had it ' +
      'active carry no organization from their next refresh.',
  })
  @ApiEnvelope(200, 'Organization deleted')
  @ApiErrors('FORBIDDEN_ORIGIN', ...ANY_BODY)
  async delete(
    @Param('orgId') orgId: string,
    @OrgMembership() membership: OrganizationMember,
    @Client() client: ClientInfo,
  ): Promise<Envelope> {
    await this.organizations.delete(orgId, client, membership.userId);
    return ok('Organization deleted');
  }
}
