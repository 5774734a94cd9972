import { Injectable, OnModuleInit } from '@nestjs/common';
import { SignInMethodRegistry } from '../auth/sign-in-methods.registry';
import { MfaService } from './mfa.service';

export const AUTHENTICATOR_APP = 'totp';

/**
 * The authenticator app's code (or one of its recovery codes): a second step only, so not
 * listed; offered as `totp` and `recovery_code` to a user who has switched it on. RFC 8176
 * `otp`, as close as it has for a recovery code too.
 */
@Injectable()
export class AuthenticatorAppWayIn implements OnModuleInit {
  constructor(
    private readonly registry: SignInMethodRegistry,
    private readonly mfa: MfaService,
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
    });
  }
}
