import { Controller, Delete, Get, HttpCode, Param, Post, Res } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { HeadersObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { AuthCookies } from '../auth/auth-cookies.service';
import { Authenticated } from '../auth/decorators/authenticated.decorator';
import { Envelope, ok } from '../common/http/envelope';
import { HttpResponse } from '../common/http/http-request';
import { Client, ClientInfo } from '../common/http/request-context';
import { RequestUser } from '../common/http/request-user.decorator';
import { SessionId } from '../common/http/session-id.decorator';
import { ANY_BODY, ApiEnvelope, ApiErrors, STORED } from '../openapi/api-responses.decorator';
import { User } from '../users/user.entity';
import { EndedSessionDataModel, EndedSessionsDataModel, SessionsDataModel } from './session.view';
import { OwnSessionsService } from './own-sessions.service';

const CLEARED_IF_CURRENT: HeadersObject = {
  'Set-Cookie': {
    description: 'Only when the current session was ended: clears access_token and refresh_token.',
    schema: { type: 'string' },
  },
};

/**
 * The signed-in user's sessions (issue 17): one per login, its refresh tokens rotated from it and
 * its access tokens naming it as `sid`. Ending one refuses its access tokens on every instance at
 * once, and its refresh token at the next refresh; the user's other sessions go on.
 */
@ApiTags('users')
@Controller('users/me/sessions')
@Authenticated()
export class SessionsController {
  constructor(
    private readonly sessions: OwnSessionsService,
    private readonly cookies: AuthCookies,
  ) {}

  @Get()
  @ApiOperation({
    operationId: 'listSessions',
    summary: "The signed-in user's live sessions",
    description:
      'One entry per login not yet ended, revoked or expired, newest use first: when it began, ' +
      'its last token refresh, the IP and user agent it logged in from, and whether it is the ' +
      'session of the access token making this request.',
  })
  @ApiEnvelope(200, 'Active sessions', { data: SessionsDataModel })
  @ApiErrors(...STORED)
  async listSessions(
    @RequestUser() user: User,
    @SessionId() current: string | undefined,
  ): Promise<Envelope<SessionsDataModel>> {
    return ok('Active sessions', { sessions: await this.sessions.list(user.id, current) });
  }

  @Delete(':id')
  @ApiOperation({
    operationId: 'endSession',
    summary: 'End one of my sessions',
    description:
      'Revokes the session: its access tokens are refused at once on every instance, its ' +
      'refresh token at its next use; the other sessions are untouched. Ending the current ' +
      'session is a logout of this device: the auth cookies are cleared. Another user’s ' +
      'session, an unknown one and one already ended all answer 404 SESSION_NOT_FOUND.',
  })
  @ApiParam({ name: 'id', description: 'The session id, as listed (the `sid` claim).' })
  @ApiEnvelope(200, 'Session ended', { data: EndedSessionDataModel, headers: CLEARED_IF_CURRENT })
  @ApiErrors('SESSION_NOT_FOUND', 'FORBIDDEN_ORIGIN', ...ANY_BODY, ...STORED)
  async endSession(
    @RequestUser() user: User,
    @SessionId() current: string | undefined,
    @Param('id') id: string,
    @Res({ passthrough: true }) res: HttpResponse,
    @Client() client: ClientInfo,
  ): Promise<Envelope<EndedSessionDataModel>> {
    await this.sessions.end(user.id, id, client);
    const isCurrent = id === current;
    // Its tokens are dead: as a logout, stop the browser sending them.
    if (isCurrent) this.cookies.clear(res);
    return ok('Session ended', { current: isCurrent });
  }

  @Post('end-others')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'endOtherSessions',
    summary: 'End every session but this one',
    description:
      'Revokes every live session of the user except the one of the access token making the ' +
      'request, which goes on (its cookies are kept). Their access tokens are refused at once ' +
      'on every instance.',
  })
  @ApiEnvelope(200, 'Other sessions ended', { data: EndedSessionsDataModel })
  @ApiErrors('FORBIDDEN_ORIGIN', ...ANY_BODY, ...STORED)
  async endOtherSessions(
    @RequestUser() user: User,
    @SessionId() current: string | undefined,
    @Client() client: ClientInfo,
  ): Promise<Envelope<EndedSessionsDataModel>> {
    // The access-token guard sets the session of every token it accepts.
    const ended = await this.sessions.endOthers(user.id, current ?? '', client);
    return ok('Other sessions ended', { ended });
  }
}
