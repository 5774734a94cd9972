import { Controller, Get, Req } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Envelope, ok } from '../common/http/envelope';
import { HttpRequest } from '../common/http/http-request';
import { RequestUser } from '../common/http/request-user.decorator';
import { SessionDataModel } from '../openapi/api-models';
import { ApiEnvelope, ApiErrors, STORED } from '../openapi/api-responses.decorator';
import { epochSeconds } from '../tokens/epoch-seconds';
import { User } from '../users/user.entity';
import { publicUser } from '../users/user.view';
import { OptionalAccess } from './decorators/authenticated.decorator';
import { refreshToken } from './strategies/token-extractors';

/**
 * What a page asks when it opens: "who is signed in here?". Unlike verify-token it answers 200
 * for a visitor too, so a signed-out visit makes no failed request (a browser logs every 4xx as a
 * console error), and it says whether a refresh is worth trying, so a returning visitor whose
 * access cookie has expired is renewed without a 401 first.
 */
@ApiTags('auth')
@Controller('auth')
export class SessionController {
  @Get('session')
  @ApiOperation({
    operationId: 'getSession',
    summary: 'The signed-in user, if any (for pages opening)',
    description:
      'Reads the access token (bearer header, or the access_token cookie) like verify-token, ' +
      'but answers 200 whether or not it is good: `data.user` is the user, or null when the ' +
      'token is missing, expired or revoked; `data.refreshable` says whether the request ' +
      'carried a refresh_token cookie (not whether it is still good: POST /auth/refresh tells); ' +
      '`data.expires_in` the seconds left on the access token (null without a user), so a page ' +
      'can renew ahead of its expiry.',
  })
  @OptionalAccess()
  @ApiEnvelope(200, 'Session', { data: SessionDataModel })
  @ApiErrors(...STORED)
  session(@RequestUser() user: User | null, @Req() req: HttpRequest): Envelope<SessionDataModel> {
    return ok(user ? 'Signed in' : 'Not signed in', {
      user: user ? publicUser(user) : null,
      refreshable: refreshToken(req) !== null,
      expires_in: user ? secondsLeft(req.accessExpiresAt) : null,
    });
  }
}

/**
 * Whole seconds, as the token's `exp` counts them (and as login's `expires_in` does): the token
 * may have up to a second less. Never negative: the second may have turned since the check.
 */
function secondsLeft(expiresAt: number | undefined): number | null {
  return expiresAt === undefined ? null : Math.max(0, expiresAt - epochSeconds());
}
