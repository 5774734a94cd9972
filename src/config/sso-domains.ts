import { domainToASCII } from 'node:url';
import { IdentityProvider } from './config.sections';

/*
 * Enterprise SSO by email domain, read by the sign-ins that must honour it (password, mailed
 * code, registration, a provider's callback) and by `POST /auth/sso/start`. Here, beside the
 * configuration it reads, so that AuthModule and IdentityProvidersModule both use it without depending
 * on each other.
 */

/** The provider whose `domains` list the address's domain (enterprise SSO), if one does. */
export function providerForEmail(
  providers: readonly IdentityProvider[],
  email: string,
): IdentityProvider | undefined {
  const at = email.lastIndexOf('@');
  if (at < 0) return undefined;
  const domain = normalizeDomain(email.slice(at + 1));
  if (domain === undefined) return undefined;
  return providers.find((provider) => provider.domains.includes(domain));
}

/**
 * A domain as IDNA reads it, in lower-case ASCII (`ſtrict.Example` is `strict.example`,
 * `bücher.example` is `xn--bcher-kva.example`), so that one domain is one string however it is
 * spelled: matched textually, a spelling that mail delivers to the same domain got around
 * `sso_required`. Undefined for what is no domain. Configured domains (at boot) and addresses
 * both go through it.
 */
export function normalizeDomain(domain: string): string | undefined {
  const ascii = domainToASCII(domain.trim()).toLowerCase();
  return ascii === '' ? undefined : ascii;
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
