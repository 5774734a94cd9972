import { IdentityProvider } from './config.sections';
import { normalizeDomain, providerForEmail, requiredProviderFor } from './sso-domains';

describe('the email domains of enterprise SSO', () => {
  const acme = { id: 'acme', domains: ['acme.example'] } as unknown as IdentityProvider;
  const strict = {
    id: 'strict',
    domains: ['strict.example'],
    ssoRequired: true,
  } as unknown as IdentityProvider;

  it('finds the provider of an address’s domain, case aside', () => {
    expect(providerForEmail([acme], 'Bo@ACME.example')?.id).toBe('acme');
    expect(providerForEmail([acme], 'bo@sub.acme.example')).toBeUndefined();
    expect(providerForEmail([acme], 'no-at-sign')).toBeUndefined();
  });

  // ſ (U+017F) is s to IDNA, as the mail systems that deliver to it read it: textually it is
  // another domain, and `bo@ſtrict.example` got around sso_required.
  it('matches a domain as IDNA reads it, not as it is spelled', () => {
    expect(requiredProviderFor([strict], 'bo@ſtrict.example')?.id).toBe('strict');
    expect(requiredProviderFor([strict], 'bo@STRICT.EXAMPLE')?.id).toBe('strict');
    expect(requiredProviderFor([strict], 'bo@strict.example.')).toBeUndefined();
    expect(requiredProviderFor([acme], 'bo@acme.example')).toBeUndefined();
  });

  it('normalises a domain to lower-case ASCII, undefined for none', () => {
    expect(normalizeDomain('ſtrict.Example')).toBe('strict.example');
    expect(normalizeDomain('Bücher.example')).toBe('xn--bcher-kva.example');
    expect(normalizeDomain('bad domain')).toBeUndefined();
    expect(normalizeDomain('')).toBeUndefined();
  });
});
