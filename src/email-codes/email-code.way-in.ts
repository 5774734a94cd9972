import { Injectable, OnModuleInit } from '@nestjs/common';
import { SignInMethodRegistry } from '../auth/sign-in-methods.registry';
import { addEmailCodeProof } from './dto/email-code-proof.field';
import { EmailCodeConfig, FederationConfig } from '../config/config.sections';
import { requiredProviderFor } from '../config/sso-domains';
import { ReauthenticationCodes } from './reauthentication-codes.service';

export const EMAIL_CODE = 'email_code';

/**
 * A code mailed to the account (or its link): unless EMAIL_CODE_LOGIN=false. RFC 8176 has no
 * name for proving a mailbox; `otp` is the closest, as OpenID providers use it for mailed codes.
 * Any address can be mailed, so it is not a way in an account could lose; every account steps up
 * with a mailed code (whatever EMAIL_CODE_LOGIN says), but for a domain that must sign in
 * through its provider (a code of its own, mailed by `POST /auth/reauthenticate/email-code`).
 */
@Injectable()
export class EmailCodeWayIn implements OnModuleInit {
  constructor(
    private readonly registry: SignInMethodRegistry,
    private readonly config: EmailCodeConfig,
    private readonly federation: FederationConfig,
    private readonly stepUpCodes: ReauthenticationCodes,
  ) {}

  onModuleInit(): void {
    addEmailCodeProof();
    this.registry.register({
      id: EMAIL_CODE,
      order: 30,
      amr: ['otp'],
      listed: true,
      enabled: () => this.config.enabled,
      stepUpFor: (user) =>
        Promise.resolve(requiredProviderFor(this.federation.providers, user.email) === undefined),
      answers: {
        fields: ['email_code'],
        purposes: ['reauthentication'],
        check: async (user, answer, _purpose, client) => {
          await this.stepUpCodes.confirm(user, answer.email_code as string, client);
          return { method: EMAIL_CODE };
        },
      },
    });
  }
}
