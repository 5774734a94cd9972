import { Injectable } from '@nestjs/common';
import { AppException } from '../common/errors/app.exception';
import { AppConfig, FederationConfig, IdentityProvider } from '../config/config.sections';
import { GitHubClient } from './github-client';
import { OidcClient } from './oidc-client';

export type ProviderClient = OidcClient | GitHubClient;

/** The path of a provider's callback, under PUBLIC_URL: what each provider is registered with. */
export function callbackPath(providerId: string): string {
  return `/api/v1/auth/providers/${providerId}/callback`;
}

/** The configured providers and a client for each, built once (discovery is kept per client). */
@Injectable()
export class ProviderClients {
  private readonly clients = new Map<
    string,
    { provider: IdentityProvider; client: ProviderClient }
  >();

  constructor(
    config: FederationConfig,
    private readonly app: AppConfig,
  ) {
    for (const provider of config.providers) {
      const redirectUri = `${app.publicUrl}${callbackPath(provider.id)}`;
      const client =
        provider.type === 'github'
          ? new GitHubClient(provider, redirectUri)
          : new OidcClient(provider, redirectUri);
      this.clients.set(provider.id, { provider, client });
    }
  }

  list(): IdentityProvider[] {
    return [...this.clients.values()].map(({ provider }) => provider);
  }

  /** 404 PROVIDER_NOT_FOUND for an id AUTH_PROVIDERS does not list. */
  get(id: string): { provider: IdentityProvider; client: ProviderClient } {
    const found = this.clients.get(id);
    if (!found) throw new AppException('PROVIDER_NOT_FOUND');
    return found;
  }
}
