import { IdentityProvider } from '../config/config.sections';

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
