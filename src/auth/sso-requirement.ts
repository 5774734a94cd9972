import { Injectable } from '@nestjs/common';
import { AppException } from '../common/errors/app.exception';
import { FederationConfig } from '../config/config.sections';
import { requiredProviderFor } from '../config/sso-domains';

/**
 * An email domain whose provider is the only way in (`sso_required`): the organisation decides
 * who signs in, and switching someone off at the provider must lock them out. So every other way
 * in (a password, a mailed code, a passkey) is refused for its addresses, and so is adding one (a
 * password, a passkey). In the core, which every way in imports: a rule they all apply.
 */
@Injectable()
export class SsoRequirement {
  constructor(private readonly federation: FederationConfig) {}

  /**
   * 403 SSO_REQUIRED for an address whose domain must sign in through its provider. Said of the
   * domain, whether or not an account uses the address: the rule is public configuration, so it
   * tells nothing of any account (with ACCOUNT_ENUMERATION_PROTECTION too).
   */
  refuse(email: string): void {
    if (requiredProviderFor(this.federation.providers, email)) {
      throw new AppException('SSO_REQUIRED');
    }
  }

  /**
   * 403 SSO_REQUIRED for moving an account off such a domain (to an address its provider does
   * not sign in): out of the domain, a reset mail would give it a password, and the
   * organisation would no longer decide who signs in with it.
   */
  refuseLeaving(current: string, next: string): void {
    const required = requiredProviderFor(this.federation.providers, current);
    if (required && requiredProviderFor(this.federation.providers, next) !== required) {
      throw new AppException('SSO_REQUIRED');
    }
  }
}
