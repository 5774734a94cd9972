import { Body, Controller, Get, HttpCode, Post, Res } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiTags } from '@nestjs/swagger';
import { HeadersObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { Envelope, ok } from '../common/http/envelope';
import { HttpResponse } from '../common/http/http-request';
import { Client, ClientInfo } from '../common/http/request-context';
import { RequestUser } from '../common/http/request-user.decorator';
import { SessionId } from '../common/http/session-id.decorator';
import { RefreshClaims } from '../sessions/refresh-claims';
import { User } from '../users/user.entity';
import { publicUser } from '../users/user.view';
import { UserDataModel } from '../openapi/api-models';
import {
  ANY_BODY,
  ApiEnvelope,
  ApiErrors,
  JSON_BODY,
  ApiTokenDelivery,
  STORED,
} from '../openapi/api-responses.decorator';
import { AuthCookies } from './auth-cookies.service';
import { AuthService } from './auth.service';
import { SessionDelivery } from './session-delivery.service';
import { TokenDelivery, TokenDeliveryMode } from './token-delivery.decorator';
import { LogoutDto } from './dto/logout.dto';
import {
  AccessOrRefreshToken,
  AccessTokenOnly,
  RefreshTokenOnly,
} from './decorators/authenticated.decorator';

type UserEnvelope = Envelope<UserDataModel>;

const CLEARED_UNLESS_OTHERS: HeadersObject = {
  'Set-Cookie': {
    description: 'Clears access_token and refresh_token, except with `scope: "others"`.',
    schema: { type: 'string' },
  },
};

@ApiTags('auth')
@Controller('auth')
export class AuthController {
  constructor(
    private readonly auth: AuthService,
    private readonly cookies: AuthCookies,
    private readonly sessions: SessionDelivery,
  ) {}

  @Post('refresh')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Rotate the refresh token and issue a new access token',
    description:
      'Takes the refresh_token cookie and retires it. Without `X-Token-Delivery`, the answer is ' +
      'the envelope and the new tokens arrive as cookies; with `X-Token-Delivery: body`, the ' +
      'token response. A retired refresh token presented again within REFRESH_REUSE_GRACE ' +
      'seconds gets the same successor; later, it revokes every session of the user. A refused ' +
      'refresh token (401) clears both cookies; any other failure (429, 503) leaves them, so a ' +
      'passing fault signs no one out.',
  })
  @RefreshTokenOnly()
  @ApiTokenDelivery('Token refreshed')
  @ApiErrors('INVALID_TOKEN', 'FORBIDDEN_ORIGIN', ...ANY_BODY, ...STORED)
  async refresh(
    @RequestUser() claims: RefreshClaims,
    @TokenDelivery() delivery: TokenDeliveryMode,
    @Res({ passthrough: true }) res: HttpResponse,
    @Client() client: ClientInfo,
  ) {
    try {
      return this.sessions.deliver(
        res,
        await this.auth.refresh(claims, client),
        delivery,
        'Token refreshed',
      );
    } catch (error) {
      // The guard clears them for the token it refuses; here, for what the rotation refuses.
      this.cookies.clearIfRefused(res, error);
      throw error;
    }
  }

  @Post('logout')
  @HttpCode(200)
  @ApiOperation({
    summary: 'End every session of the user, or only this one, or all but this one',
    description:
      'Takes the access token, or the refresh cookie when the access token has expired. The ' +
      'body is optional: without it (or without `scope`) every session of the user ends, on ' +
      'every device, and the cookies are cleared. `{"scope": "current"}` ends only the session ' +
      'of the token presented (cookies cleared); `{"scope": "others"}` ends every other session ' +
      "and keeps this one (cookies kept). Ended sessions' access tokens are refused at once on " +
      'every instance.',
  })
  @AccessOrRefreshToken()
  @ApiBody({ type: LogoutDto, required: false })
  @ApiEnvelope(200, 'Logged out from all devices', { headers: CLEARED_UNLESS_OTHERS })
  @ApiErrors('INVALID_TOKEN', 'FORBIDDEN_ORIGIN', ...JSON_BODY, ...STORED)
  async logout(
    @RequestUser() principal: User | RefreshClaims,
    @SessionId() sessionId: string | undefined,
    @Body() body: LogoutDto,
    @Res({ passthrough: true }) res: HttpResponse,
    @Client() client: ClientInfo,
  ): Promise<Envelope> {
    const scope = body.scope ?? 'all';
    const ended = await this.auth.logout(principal, sessionId, scope, client);
    if (scope === 'others') {
      return ok(`Logged out from ${ended} other session${ended === 1 ? '' : 's'}`);
    }
    this.cookies.clear(res);
    return ok(scope === 'all' ? 'Logged out from all devices' : 'Logged out from this session');
  }

  @Get('verify-token')
  @ApiOperation({
    operationId: 'verifyToken',
    summary: 'Check an access token and return its user',
    description:
      'Checks the signature, expiry and revocation of the access token (bearer header, or the ' +
      'access_token cookie when there is none) and answers its user as stored now.',
  })
  @AccessTokenOnly()
  @ApiEnvelope(200, 'Token is valid', { data: UserDataModel })
  @ApiErrors('INVALID_TOKEN', ...STORED)
  verifyTokenGet(@RequestUser() user: User): UserEnvelope {
    return ok('Token is valid', { user: publicUser(user) });
  }

  @Post('verify-token')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Check an access token and return its user (POST form)',
    description:
      'The same check as the GET form, for clients that can only POST; with the cookie, the ' +
      'CSRF origin check applies as on any POST.',
  })
  @AccessTokenOnly()
  @ApiEnvelope(200, 'Token is valid', { data: UserDataModel })
  @ApiErrors('INVALID_TOKEN', 'FORBIDDEN_ORIGIN', ...ANY_BODY, ...STORED)
  verifyTokenPost(@RequestUser() user: User): UserEnvelope {
    return this.verifyTokenGet(user);
  }
}
