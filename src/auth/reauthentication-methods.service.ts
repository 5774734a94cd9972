import { Injectable } from '@nestjs/common';
import { FederationConfig } from '../config/config.sections';
import { requiredProviderFor } from '../config/sso-domains';
import { IdentitiesService } from '../identities/identities.service';
import { MfaService } from '../mfa/mfa.service';
import { PasskeysService } from '../passkeys/passkeys.service';
import { User, hasPassword } from '../users/user.entity';
import {
  ProfileProofs,
  REAUTHENTICATION_METHODS,
  ReauthenticationMethod,
} from '../users/user.view';
import { ReauthenticationCodes } from './reauthentication-codes.service';

/**
 * Which proofs an account has, for the client that must ask for one it can give: a page never
 * asks a passwordless account for a password.
 */
@Injectable()
export class ReauthenticationMethods {
  constructor(
    private readonly mfa: MfaService,
    private readonly passkeys: PasskeysService,
    private readonly identities: IdentitiesService,
    private readonly emailCodes: ReauthenticationCodes,
    private readonly federation: FederationConfig,
  ) {}

  async of(user: User): Promise<ProfileProofs> {
    const [codes, passkey, linked] = await Promise.all([
      this.mfa.methodsOf(user.id),
      this.passkeys.hasAny(user.id),
      this.identities.list(user.id),
    ]);
    // Only providers still configured, and for a domain that must sign in through its own
    // provider, that one alone.
    const required = requiredProviderFor(this.federation.providers, user.email);
    const usable = linked.some((identity) =>
      required
        ? identity.provider === required.id
        : this.federation.providers.some((provider) => provider.id === identity.provider),
    );
    const has: Record<ReauthenticationMethod, boolean> = {
      password: hasPassword(user),
      totp: codes.includes('totp'),
      passkey,
      identity_provider: usable,
      email_code: this.emailCodes.availableTo(user),
    };
    return {
      hasPassword: has.password,
      methods: REAUTHENTICATION_METHODS.filter((method) => has[method]),
    };
  }
}
