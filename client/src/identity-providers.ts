import type { ProviderReturn } from './types.js';

/** What a round trip through a provider is for. */
export type ProviderTrip = 'sign-in' | 'link' | 'reauthenticate';

const START_PATHS: Record<ProviderTrip, (id: string) => string> = {
  'sign-in': (id) => `/auth/providers/${id}/start`,
  link: (id) => `/users/me/identities/${id}/start`,
  reauthenticate: (id) => `/auth/reauthenticate/providers/${id}/start`,
};

/**
 * The address a browser goes to (a top-level navigation, `location.assign`) to sign in with a
 * provider, to link one to the signed-in account, or to step the session up through a linked
 * one; it comes back to `redirectTo`.
 */
export function providerStartUrl(
  baseUrl: string,
  providerId: string,
  redirectTo: string,
  trip: ProviderTrip,
): string {
  const path = START_PATHS[trip](encodeURIComponent(providerId));
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
