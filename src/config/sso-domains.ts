import { IdentityProvider } from './config.sections';

/*
 * Enterprise SSO by email domain, read by the sign-ins that must honour it (password, mailed
 * code, registration, a provider's callback) and by `POST /auth/sso/start`. Here, beside the
 * configuration it reads, so that AuthModule and FederationModule both use it without depending
 * on each other.
 */

/** The provider whose `domains` list the address's domain (enterprise SSO), if one does. */
export function providerForEmail(
  providers: readonly IdentityProvider[],
  email: string,
): IdentityProvider | undefined {
  const at = email.lastIndexOf('@');
  if (at < 0) return undefined;
  const domain = email
    .slice(at + 1)
    .trim()
    .toLowerCase();
  return providers.find((provider) => provider.domains.includes(domain));
}

/**
 * The provider an address must sign in through, when its domain has `sso_required`. Said of the
 * domain, whether or not an account uses the address: the rule is public configuration, so
 * answering it tells nothing of any account.
 */
export function requiredProviderFor(
  providers: readonly IdentityProvider[],
  email: string,
): IdentityProvider | undefined {
  const provider = providerForEmail(providers, email);
  return provider?.ssoRequired ? provider : undefined;
}
