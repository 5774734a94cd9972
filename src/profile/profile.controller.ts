import { Controller, Get } from '@nestjs/common';
import { Authenticated } from '../auth/decorators/authenticated.decorator';
import { Envelope, ok } from '../common/http/envelope';
import { RequestUser } from '../common/http/request-user.decorator';
import { User } from '../users/user.entity';
import { ProfileView, profileView } from '../users/user.view';

/**
 * The signed-in user's own account: the first endpoint built on the user-management seam
 * (`@Authenticated()` and `UserDirectory`), and the model for the announced management module.
 */
@Controller('users')
export class ProfileController {
  @Get('me')
  @Authenticated()
  me(@RequestUser() user: User): Envelope<{ user: ProfileView }> {
    return ok('Current user', { user: profileView(user) });
  }
}
