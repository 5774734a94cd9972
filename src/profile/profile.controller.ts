import { Controller, Get } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../auth/decorators/authenticated.decorator';
import { Envelope, ok } from '../common/http/envelope';
import { RequestUser } from '../common/http/request-user.decorator';
import { ProfileDataModel } from '../openapi/api-models';
import { ApiEnvelope, ApiErrors, STORED } from '../openapi/api-responses.decorator';
import { User } from '../users/user.entity';
import { profileView } from '../users/user.view';

/**
 * The signed-in user's own account: the first endpoint built on the user-management seam
 * (`@Authenticated()` and `UserDirectory`), and the model for the announced management module.
 */
@ApiTags('users')
@Controller('users')
export class ProfileController {
  @Get('me')
  @Authenticated()
  @ApiOperation({
    operationId: 'getProfile',
    summary: "The signed-in user's profile",
    description:
      'The account as stored now, of the user the access token names (bearer header, or the ' +
      'access_token cookie when there is none).',
  })
  @ApiEnvelope(200, 'Current user', { data: ProfileDataModel })
  @ApiErrors(...STORED)
  me(@RequestUser() user: User): Envelope<ProfileDataModel> {
    return ok('Current user', { user: profileView(user) });
  }
}
