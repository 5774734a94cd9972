// Identity providers (OpenID Connect, enterprise SSO) as a way in, and the identities linked to the
// account. Reached as `auth.identityProviders` once `identityProviders()` is among the client's
// plugins. A provider's round trip leaves the page: each call that starts one answers its address.
import type { AuthClientPlugin, SessionEngine } from './plugin.js';
import type { DataEnvelope, MessageEnvelope } from './types.js';

/** An identity provider one can sign in with (`auth.identityProviders.list()`). */
export interface IdentityProvider {
  id: string;
  /** What the sign-in button says. */
  name: string;
}

/** An identity provider linked to the signed-in account. */
export interface LinkedIdentity {
  provider: string;
  email: string | null;
  /** ISO 8601. */
  created_at: string;
}

/**
 * What a provider's round trip left in the address it came back to: nothing (signed in, linked,
 * or the session stepped up), an `error` (`ACCOUNT_EXISTS`, `PROVIDER_ERROR`, or after a step-up
 * `IDENTITY_NOT_FOUND`: another identity than the linked one signed in), or the second step the
 * account asks for (answer it with `auth.secondFactor.verify`).
 */
export type ProviderReturn =
  | { kind: 'done' }
  | { kind: 'error'; error: string }
  | { kind: 'second_factor'; challenge: string; methods: string[] };

/** What a round trip through a provider is for. */
type ProviderTrip = 'sign-in' | 'link' | 'reauthenticate';

const START_PATHS: Record<ProviderTrip, (id: string) => string> = {
  'sign-in': (id) => `/auth/providers/${id}/start`,
  link: (id) => `/users/me/identities/${id}/start`,
  reauthenticate: (id) => `/auth/reauthenticate/providers/${id}/start`,
};

/**
 * `createAuthClient({ baseUrl, plugins: [identityProviders()] })`, then
 * `location.assign(auth.identityProviders.signInUrl(id, back))`.
 */
export const identityProviders = (): AuthClientPlugin<
  'identityProviders',
  IdentityProvidersClient
> => ({
  id: 'identityProviders',
  create: (engine) => new IdentityProvidersClient(engine),
});

export class IdentityProvidersClient {
  constructor(private readonly engine: SessionEngine) {}

  /** The identity providers this service signs in with: a "Sign in with <name>" button each. */
  list(): Promise<DataEnvelope<{ providers: IdentityProvider[] }>> {
    return this.engine.call('GET', '/auth/providers');
  }

  /**
   * Where to send the browser to sign in with a provider (`location.assign(url)`); it comes back
   * to `redirectTo` (an APP_ORIGINS page) signed in, or as `readReturn` tells.
   */
  signInUrl(providerId: string, redirectTo: string): string {
    return this.startUrl(providerId, redirectTo, 'sign-in');
  }

  /**
   * Enterprise SSO: where an address's domain signs in (`url`, to send the browser to), or
   * `404 SSO_NOT_CONFIGURED` (sign in another way).
   */
  startSingleSignOn(input: {
    email: string;
    redirectTo: string;
  }): Promise<DataEnvelope<{ provider: string; url: string }>> {
    return this.engine.call('POST', '/auth/sso/start', {
      email: input.email,
      redirect_to: input.redirectTo,
    });
  }

  /**
   * What a provider's round trip left in the page's address (`?error=…`, `#mfa_required=…`); a
   * completed sign-in is announced to every tab once `auth.status()` or the next call sees the
   * session.
   */
  readReturn(address: string | URL): ProviderReturn {
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

  /** The signed-in user's linked identities, oldest first. */
  listLinked(): Promise<DataEnvelope<{ identities: LinkedIdentity[] }>> {
    return this.engine.authed('GET', '/users/me/identities');
  }

  /**
   * Where to send the browser to link a provider to the signed-in account (a recent sign-in is
   * needed: the start answers `403 REAUTHENTICATION_REQUIRED` otherwise).
   */
  linkUrl(providerId: string, redirectTo: string): string {
    return this.startUrl(providerId, redirectTo, 'link');
  }

  /** `409 LAST_SIGN_IN_METHOD` when it is the account's last way in. */
  unlink(providerId: string): Promise<MessageEnvelope> {
    return this.engine.authed('DELETE', `/users/me/identities/${encodeURIComponent(providerId)}`);
  }

  /**
   * Where to send the browser (`location.assign(url)`) to step up with a fresh sign-in at a
   * linked identity provider; it comes back to `redirectTo` with this session renewed, or as
   * `readReturn` tells (`IDENTITY_NOT_FOUND`: another identity signed in there). The page is
   * left: call again what needed the step-up once it is back.
   */
  reauthenticateUrl(providerId: string, redirectTo: string): string {
    return this.startUrl(providerId, redirectTo, 'reauthenticate');
  }

  /** The address a browser goes to (a top-level navigation); it comes back to `redirectTo`. */
  private startUrl(providerId: string, redirectTo: string, trip: ProviderTrip): string {
    const path = START_PATHS[trip](encodeURIComponent(providerId));
    return `${this.engine.baseUrl}${path}?redirect_to=${encodeURIComponent(redirectTo)}`;
  }
}
