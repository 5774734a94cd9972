import { Injectable, OnModuleInit } from '@nestjs/common';
import { SignInMethodRegistry } from '../auth/sign-in-methods.registry';

export const AUTHENTICATOR_APP = 'totp';

/**
 * The authenticator app's code (or one of its recovery codes): a second step only, so not
 * listed. RFC 8176 `otp`, as close as it has for a recovery code too.
 */
@Injectable()
export class AuthenticatorAppWayIn implements OnModuleInit {
  constructor(private readonly registry: SignInMethodRegistry) {}

  onModuleInit(): void {
    this.registry.register({
      id: AUTHENTICATOR_APP,
      order: 50,
      amr: ['otp'],
      listed: false,
      enabled: () => true,
    });
  }
}
