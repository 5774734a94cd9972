import { Controller, Get } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Envelope, ok } from '../common/http/envelope';
import { SignInMethod, SignInMethodsDataModel } from '../openapi/api-models';
import { ANY_ROUTE, ApiEnvelope, ApiErrors } from '../openapi/api-responses.decorator';
import { Public } from './decorators/public.decorator';
import { SignInMethodRegistry } from './sign-in-methods.registry';

/**
 * What a sign-in page offers, from the service's configuration rather than the page's: a page
 * that showed a way in the service has switched off would only lead to a 404. Each way in
 * registers whether it is on.
 */
@ApiTags('auth')
@Controller('auth')
export class SignInMethodsController {
  constructor(private readonly waysIn: SignInMethodRegistry) {}

  @Get('sign-in-methods')
  @ApiOperation({
    operationId: 'listSignInMethods',
    summary: 'The ways to sign in this service offers',
    description:
      '`password` and `passkey` always; `email_code` unless EMAIL_CODE_LOGIN=false; ' +
      '`identity_provider` when AUTH_PROVIDERS names one (GET /auth/providers lists them). ' +
      'A second factor is not a way in of its own: an account that has one is asked for it ' +
      'after the first step.',
  })
  @Public()
  @ApiEnvelope(200, 'Sign-in methods', { data: SignInMethodsDataModel })
  @ApiErrors(...ANY_ROUTE)
  methods(): Envelope<SignInMethodsDataModel> {
    return ok('Sign-in methods', { methods: this.waysIn.listed() as SignInMethod[] });
  }
}
