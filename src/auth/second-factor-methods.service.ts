import { Injectable } from '@nestjs/common';
import { MfaService, SecondFactorMethod } from '../mfa/mfa.service';
import { PasskeysService } from '../passkeys/passkeys.service';

/** A way to answer a login's second step, in the order a sign-in page offers them. */
export type LoginSecondStep = 'passkey' | SecondFactorMethod;

/**
 * Which second factors a user has: a passkey (the phishing-resistant one, offered first), and an
 * authenticator app with its recovery codes. A user with either must take a second step after
 * their password, and counts as enrolled for MFA_REQUIRED_ROLES.
 */
@Injectable()
export class SecondFactorMethods {
  constructor(
    private readonly mfa: MfaService,
    private readonly passkeys: PasskeysService,
  ) {}

  /** Empty when the user has no second factor. */
  async of(userId: string): Promise<LoginSecondStep[]> {
    const [codes, passkey] = await Promise.all([
      this.mfa.methodsOf(userId),
      this.passkeys.hasAny(userId),
    ]);
    return [...(passkey ? (['passkey'] as const) : []), ...codes];
  }
}
