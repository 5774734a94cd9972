import type { ProviderReturn } from './types.js';

/**
 * The address a browser goes to (a top-level navigation, `location.assign`) to sign in with a
 * provider, or to link one to the signed-in account; it comes back to `redirectTo`.
 */
export function providerStartUrl(
  baseUrl: string,
  providerId: string,
  redirectTo: string,
  link: boolean,
): string {
  const path = link
    ? `/users/me/identities/${encodeURIComponent(providerId)}/start`
    : `/auth/providers/${encodeURIComponent(providerId)}/start`;
  return `${baseUrl}${path}?redirect_to=${encodeURIComponent(redirectTo)}`;
}

/** Reads what the round trip left in the page's address (`?error=…`, `#mfa_required=…`). */
export function readProviderReturn(address: string | URL): ProviderReturn {
  const url = new URL(address);
  const fragment = new URLSearchParams(url.hash.slice(1));
  const challenge = fragment.get('challenge');
  if (fragment.get('mfa_required') === 'true' && challenge) {
    return {
      kind: 'second_factor',
      challenge,
      methods: (fragment.get('methods') ?? '').split(',').filter(Boolean),
    };
  }
  const error = url.searchParams.get('error');
  return error ? { kind: 'error', error } : { kind: 'done' };
}
