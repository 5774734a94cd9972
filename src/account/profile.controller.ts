import { Body, Controller, Get, Patch } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  Authenticated,
  AuthenticatedBeforeEnrolment,
} from '../auth/decorators/authenticated.decorator';
import { ReauthenticationMethods } from '../auth/reauthentication-methods.service';
import { AppException } from '../common/errors/app.exception';
import { Envelope, ok } from '../common/http/envelope';
import { Client, ClientInfo } from '../common/http/request-context';
import { RequestUser } from '../common/http/request-user.decorator';
import { ProfileDataModel } from '../openapi/api-models';
import { ApiEnvelope, ApiErrors, JSON_BODY, STORED } from '../openapi/api-responses.decorator';
import { User } from '../users/user.entity';
import { profileView } from '../users/user.view';
import { UpdateProfileDto } from './dto/update-profile.dto';
import { ProfileService } from './profile.service';

/**
 * The signed-in user's own account: built on the user-management seam (`@Authenticated()`,
 * `@RequestUser()`), the model for routes about "me".
 */
@ApiTags('users')
@Controller('users')
export class ProfileController {
  constructor(
    private readonly profiles: ProfileService,
    private readonly proofs: ReauthenticationMethods,
  ) {}

  @Get('me')
  @AuthenticatedBeforeEnrolment()
  @ApiOperation({
    operationId: 'getProfile',
    summary: "The signed-in user's profile",
    description:
      'The account as stored now, of the user the access token names (bearer header, or the ' +
      'access_token cookie when there is none), with whether it has a password ' +
      '(`has_password`) and the proofs it can give a step-up (`reauthentication_methods`): ' +
      'what a page asks for when a change needs the password or a recent sign-in.',
  })
  @ApiEnvelope(200, 'Current user', { data: ProfileDataModel })
  @ApiErrors(...STORED)
  async me(@RequestUser() user: User): Promise<Envelope<ProfileDataModel>> {
    return ok('Current user', { user: profileView(user, await this.proofs.of(user)) });
  }

  @Patch('me')
  @Authenticated()
  @ApiOperation({
    operationId: 'updateProfile',
    summary: "Change the signed-in user's username, display name or picture",
    description:
      'Sets each field given and keeps the others; `null` (or an empty `name`) clears `name` ' +
      'and `picture`. `picture` is an https URL of an image stored elsewhere. A username ' +
      'another account has, in any case, is 409 REGISTRATION_FAILED (as at registration) and ' +
      'changes nothing. An empty body is 400. Every instance serves the new profile once this ' +
      'answers.',
  })
  @ApiEnvelope(200, 'Profile updated', { data: ProfileDataModel })
  @ApiErrors('REGISTRATION_FAILED', 'FORBIDDEN_ORIGIN', ...JSON_BODY, ...STORED)
  async update(
    @RequestUser() user: User,
    @Body() body: UpdateProfileDto,
    @Client() client: ClientInfo,
  ): Promise<Envelope<ProfileDataModel>> {
    const { username, name, picture } = body;
    if (username === undefined && name === undefined && picture === undefined) {
      throw new AppException('VALIDATION_ERROR', {
        message: 'Nothing to change: give username, name or picture',
        details: [{ field: 'body', message: 'give at least one of username, name and picture' }],
      });
    }
    const updated = await this.profiles.update(user.id, { username, name, picture }, client);
    return ok('Profile updated', {
      user: profileView(updated, await this.proofs.of(updated)),
    });
  }
}
