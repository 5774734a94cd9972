import { Body, Controller, HttpCode, Post, Req, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../auth/decorators/authenticated.decorator';
import { PresentedRefresh } from '../auth/presented-refresh.service';
import { SessionDelivery } from '../auth/session-delivery.service';
import { TokenDelivery, TokenDeliveryMode } from '../auth/token-delivery.decorator';
import { HttpRequest, HttpResponse } from '../common/http/http-request';
import { Client, ClientInfo } from '../common/http/request-context';
import { RequestUser } from '../common/http/request-user.decorator';
import { ApiErrors, ApiTokenDelivery, JSON_BODY, STORED } from '../openapi/api-responses.decorator';
import { SessionsService } from '../sessions/sessions.service';
import { AccessTokensService } from '../tokens/access-tokens.service';
import { User } from '../users/user.entity';
import { ActiveOrganizations } from './active-organizations.service';
import { ChooseOrganizationDto } from './dto/member.dto';

/** A session's active organization, carried by its access tokens as `org_id` and `org_role`. */
@ApiTags('auth')
@Controller('auth/organization')
export class ActiveOrganizationController {
  constructor(
    private readonly active: ActiveOrganizations,
    private readonly sessions: SessionsService,
    private readonly accessTokens: AccessTokensService,
    private readonly delivery: SessionDelivery,
    private readonly presented: PresentedRefresh,
  ) {}

  @Post()
  @HttpCode(200)
  @Authenticated()
  @ApiOperation({
    operationId: 'setActiveOrganization',
    summary: "Choose the session's active organization",
    description:
      '`{"organization_id": "org_…"}` (one the user is a member of; 404 ORGANIZATION_NOT_FOUND ' +
      'otherwise) or `{"organization_id": null}` to clear it. Answers as a refresh does (new ' +
      'tokens for the same session, as cookies or with `X-Token-Delivery: body` in the body); ' +
      'from then on the access tokens of this session carry `org_id` and `org_role`, across ' +
      'refreshes, with the role as stored at each refresh (none once the user is removed).',
  })
  @ApiTokenDelivery('Active organization set')
  @ApiErrors('ORGANIZATION_NOT_FOUND', 'FORBIDDEN_ORIGIN', ...JSON_BODY, ...STORED)
  async choose(
    @RequestUser() user: User,
    @Body() body: ChooseOrganizationDto,
    @Req() req: HttpRequest,
    @TokenDelivery() delivery: TokenDeliveryMode,
    @Res({ passthrough: true }) res: HttpResponse,
    @Client() client: ClientInfo,
  ) {
    const sessionId = req.sessionId!;
    await this.active.choose(user.id, sessionId, body.organization_id);
    // The session's authentication stays what it was: choosing an organization is no sign-in.
    const auth = {
      methods: req.amr ?? [],
      authTime: new Date((req.authTime ?? 0) * 1000),
    };
    const renewed = await this.sessions.renew(
      user.id,
      sessionId,
      auth,
      this.presented.of(req),
      client,
    );
    const tokens = await this.accessTokens.renewedSessionTokens(renewed.user, renewed.refresh);
    const message = body.organization_id
      ? 'Active organization set'
      : 'Active organization cleared';
    return this.delivery.deliver(res, { user: renewed.user, tokens }, delivery, message);
  }
}
