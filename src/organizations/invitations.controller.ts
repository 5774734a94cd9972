import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../auth/decorators/authenticated.decorator';
import { Envelope, ok } from '../common/http/envelope';
import { Client, ClientInfo } from '../common/http/request-context';
import { RequestUser } from '../common/http/request-user.decorator';
import { ApiEnvelope, ApiErrors, JSON_BODY, STORED } from '../openapi/api-responses.decorator';
import { User } from '../users/user.entity';
import { AcceptInvitationDto } from './dto/member.dto';
import { InvitationsService } from './invitations.service';
import { OrganizationDataModel, organizationView } from './organization.view';

@ApiTags('organizations')
@Controller('invitations')
export class InvitationsController {
  constructor(private readonly invitations: InvitationsService) {}

  @Post('accept')
  @HttpCode(200)
  @Authenticated()
  @ApiOperation({
    operationId: 'acceptInvitation',
    summary: 'Accept an invitation to an organization',
    description:
      'The `invitation` token of the mailed link, by the signed-in account whose verified email ' +
      'is the invited address (403 INVITATION_EMAIL_MISMATCH otherwise; an address without an ' +
      'account registers, verifies and then accepts). A token never issued, used, withdrawn or ' +
      'expired (seven days) is 401 INVALID_TOKEN with `details[0].reason` (`used`, ' +
      '`withdrawn`, `expired`) when it was issued. 409 ALREADY_MEMBER for a member.',
  })
  @ApiEnvelope(200, 'Invitation accepted', { data: OrganizationDataModel })
  @ApiErrors(
    'INVITATION_EMAIL_MISMATCH',
    'ALREADY_MEMBER',
    'FORBIDDEN_ORIGIN',
    ...JSON_BODY,
    ...STORED,
  )
  async accept(
    @RequestUser() user: User,
    @Body() body: AcceptInvitationDto,
    @Client() client: ClientInfo,
  ): Promise<Envelope<OrganizationDataModel>> {
    const { organization, role } = await this.invitations.accept(user, body.token, client);
    return ok('Invitation accepted', { organization: organizationView(organization, role) });
  }
}
