import { Controller, HttpCode, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { AccessTokenOnly } from '../auth/decorators/authenticated.decorator';
import { Envelope, ok } from '../common/http/envelope';
import { Client, ClientInfo } from '../common/http/request-context';
import { RequestUser } from '../common/http/request-user.decorator';
import { EmailCodeRequestedDataModel } from '../openapi/api-models';
import { ANY_BODY, ApiEnvelope, ApiErrors, STORED } from '../openapi/api-responses.decorator';
import { User } from '../users/user.entity';
import { ReauthenticationCodes } from './reauthentication-codes.service';

/**
 * The mail of a step-up code; the code goes to `POST /auth/reauthenticate` with the other
 * proofs (the core's ReauthenticationController), which hands it to this way in's check.
 */
@ApiTags('auth')
@Controller('auth/reauthenticate')
@AccessTokenOnly()
export class EmailCodeReauthenticationController {
  constructor(private readonly codes: ReauthenticationCodes) {}

  @Post('email-code')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'requestReauthenticationCode',
    summary: "Mail a six-digit code to the account's address, for a step-up",
    description:
      'Mails the address stored on the signed-in account a code for `POST ' +
      '/auth/reauthenticate {email_code}`, good once for EMAIL_CODE_TTL seconds (`data.expires_in`). ' +
      'The mail has no link, and its code signs no one in (nor does a sign-in code confirm a ' +
      'step-up); a new mail retires the step-up codes sent before it. Works whatever ' +
      'EMAIL_CODE_LOGIN says: every account, passwordless ones included, has this proof. ' +
      "Counted with the sign-in codes in the address's MAIL_RECIPIENT_LIMIT (429 " +
      'RATE_LIMITED with Retry-After past it, nothing mailed); 503 EMAIL_SERVICE_ERROR when ' +
      'the mail could not be sent; 403 SSO_REQUIRED for an address whose domain must sign in ' +
      'through its provider (step up with it instead). Takes no body.',
  })
  @ApiEnvelope(200, 'Code sent', { data: EmailCodeRequestedDataModel })
  @ApiErrors(
    'INVALID_TOKEN',
    'SSO_REQUIRED',
    'EMAIL_SERVICE_ERROR',
    'FORBIDDEN_ORIGIN',
    ...ANY_BODY,
    ...STORED,
  )
  async emailCode(
    @RequestUser() user: User,
    @Client() client: ClientInfo,
  ): Promise<Envelope<EmailCodeRequestedDataModel>> {
    const expiresIn = await this.codes.send(user, client);
    return ok('Code sent', { expires_in: expiresIn });
  }
}
