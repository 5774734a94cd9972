import { Injectable, OnModuleInit } from '@nestjs/common';
import { SignInMethodRegistry } from '../auth/sign-in-methods.registry';
import { SecondFactorService } from './second-factor.service';
import { SecondFactorCodes } from './second-factor-codes.service';

export const AUTHENTICATOR_APP = 'totp';

/**
 * The authenticator app's code (or one of its recovery codes): a second step only, so not
 * listed; offered as `totp` and `recovery_code` to a user who has switched it on, and a step-up
 * on top of the session's first step. RFC 8176 `otp`, as close as it has for a recovery code.
 */
@Injectable()
export class AuthenticatorAppWayIn implements OnModuleInit {
  constructor(
    private readonly registry: SignInMethodRegistry,
    private readonly mfa: SecondFactorService,
    private readonly codes: SecondFactorCodes,
  ) {}

  onModuleInit(): void {
    this.registry.register({
      id: AUTHENTICATOR_APP,
      order: 50,
      amr: ['otp'],
      listed: false,
      enabled: () => true,
      secondStepsOf: (userId) => this.mfa.methodsOf(userId),
      stepUpFor: async (user) => (await this.mfa.methodsOf(user.id)).length > 0,
      // A recovery code answers a login's second step; a step-up's body has no such field.
      answers: {
        fields: ['code', 'recovery_code'],
        purposes: ['second_factor', 'reauthentication'],
        check: async (user, answer, _purpose, client) => {
          const code = answer.code as string | undefined;
          await this.codes.confirm(
            user,
            code !== undefined ? { code } : { recoveryCode: answer.recovery_code as string },
            client,
          );
          return { method: AUTHENTICATOR_APP };
        },
      },
    });
  }
}
