import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiProperty, ApiQuery, ApiTags } from '@nestjs/swagger';
import { readListQuery, DEFAULT_PAGE_SIZE, MAX_SEARCH_LENGTH } from '../admin/dto/list-users.query';
import { Authenticated } from '../auth/decorators/authenticated.decorator';
import { RecentlyAuthenticated } from '../auth/guards/second-factor.guard';
import { AppException } from '../common/errors/app.exception';
import { Envelope, ok } from '../common/http/envelope';
import { ApiEnvelope, ApiErrors, STORED } from '../openapi/api-responses.decorator';
import { MAX_PAGE_SIZE } from '../users/user-directory.service';
import { UsersService } from '../users/users.service';
import { AdminOrganizations } from './admin-organizations.service';
import { OrganizationsDataModel, organizationView } from './organization.view';

export class AdminOrganizationView {
  @ApiProperty({ example: 'org_184467440737095516' })
  id!: string;

  @ApiProperty({ example: 'Acme' })
  name!: string;

  @ApiProperty({ example: 'acme' })
  slug!: string;

  @ApiProperty({ description: 'How many members it has.', example: 3 })
  members!: number;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;
}

export class AdminOrganizationPageModel {
  @ApiProperty({ type: [AdminOrganizationView] })
  organizations!: AdminOrganizationView[];

  @ApiProperty({ example: 1 })
  page!: number;

  @ApiProperty({ example: 20 })
  page_size!: number;

  @ApiProperty({ description: 'Organizations matching the search.', example: 42 })
  total!: number;
}

/**
 * Every organization, for the service's administrators (`role: admin`, a recent sign-in, as
 * every admin route), and the organizations of one user.
 */
@ApiTags('admin')
@Controller('admin')
@Authenticated('admin')
@RecentlyAuthenticated()
export class AdminOrganizationsController {
  constructor(
    private readonly admin: AdminOrganizations,
    private readonly users: UsersService,
  ) {}

  @Get('organizations')
  @ApiOperation({
    operationId: 'listAllOrganizations',
    summary: 'List and search organizations, a page at a time',
    description:
      'Newest first, then by id (descending). `search` matches the beginning of the name or ' +
      'the slug, case-insensitively and literally. `pageSize` is ' +
      `${DEFAULT_PAGE_SIZE} by default and at most ${MAX_PAGE_SIZE}; a value out of range is ` +
      '400 VALIDATION_ERROR.',
  })
  @ApiQuery({
    name: 'search',
    required: false,
    schema: { type: 'string', maxLength: MAX_SEARCH_LENGTH },
  })
  @ApiQuery({ name: 'page', required: false, schema: { type: 'integer', minimum: 1, default: 1 } })
  @ApiQuery({
    name: 'pageSize',
    required: false,
    schema: { type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE },
  })
  @ApiEnvelope(200, 'Organizations', { data: AdminOrganizationPageModel })
  @ApiErrors('VALIDATION_ERROR', ...STORED)
  async list(
    @Query() query: Record<string, unknown>,
  ): Promise<Envelope<AdminOrganizationPageModel>> {
    const { search, page, pageSize } = readListQuery({
      search: query.search,
      page: query.page,
      pageSize: query.pageSize,
    });
    const result = await this.admin.list(search, page ?? 1, pageSize);
    return ok('Organizations', {
      organizations: result.items.map(({ organization, members }) => ({
        id: organization.id,
        name: organization.name,
        slug: organization.slug,
        members,
        created_at: organization.createdAt.toISOString(),
      })),
      page: page ?? 1,
      page_size: pageSize,
      total: result.total,
    });
  }

  @Get('users/:id/organizations')
  @ApiParam({ name: 'id', description: 'The user id (`user_` and digits).' })
  @ApiOperation({
    operationId: 'getUserOrganizations',
    summary: "A user's organizations",
    description: 'Every organization the user is a member of, with its role there.',
  })
  @ApiEnvelope(200, 'Organizations', { data: OrganizationsDataModel })
  @ApiErrors('USER_NOT_FOUND', ...STORED)
  async ofUser(@Param('id') id: string): Promise<Envelope<OrganizationsDataModel>> {
    if (!(await this.users.findById(id))) throw new AppException('USER_NOT_FOUND');
    const theirs = await this.admin.ofUser(id);
    return ok('Organizations', {
      organizations: theirs.map(({ organization, role }) => organizationView(organization, role)),
    });
  }
}
