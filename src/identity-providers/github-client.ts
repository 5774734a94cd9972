import { createHash } from 'node:crypto';
import { IdentityProvider } from '../config/config.sections';
import { ProviderProfile, ProviderRefused } from './provider-profile';

const TIMEOUT_MS = 10_000;

interface GitHubEmail {
  email?: unknown;
  primary?: unknown;
  verified?: unknown;
}

/**
 * GitHub: plain OAuth 2 (no ID token, no nonce), with PKCE and state; the person is read from its
 * API (`/user` for the numeric id, the subject that never changes; `/user/emails` for the
 * addresses). Only the primary address, and only when GitHub has verified it: anyone can add an
 * address to a GitHub account, and a secondary one (verified once, perhaps long ago) or an
 * unverified primary one is no word that this person holds that mailbox; an account made with
 * it would be waiting for the address's owner (a pre-account takeover). Without one, no address.
 */
export class GitHubClient {
  private readonly endpoints: NonNullable<IdentityProvider['github']>;

  constructor(
    private readonly provider: IdentityProvider,
    private readonly redirectUri: string,
  ) {
    this.endpoints = provider.github!;
  }

  /**
   * GitHub has no way to ask for a new sign-in (no `prompt=login`, no `max_age`): a step-up
   * through it proves the browser holds the GitHub account now, however long it has.
   */
  authorizationUrl(flow: { state: string; codeVerifier: string }): Promise<string> {
    const url = new URL(this.endpoints.authorization);
    url.search = new URLSearchParams({
      client_id: this.provider.clientId,
      redirect_uri: this.redirectUri,
      scope: this.provider.scopes.join(' '),
      state: flow.state,
      code_challenge: createHash('sha256').update(flow.codeVerifier).digest('base64url'),
      code_challenge_method: 'S256',
      allow_signup: 'true',
    }).toString();
    return Promise.resolve(url.toString());
  }

  async profile(
    query: URLSearchParams,
    flow: { state: string; codeVerifier: string },
  ): Promise<ProviderProfile> {
    if (query.get('state') !== flow.state) throw new ProviderRefused('state mismatch');
    const code = query.get('code');
    if (!code) throw new ProviderRefused(`no code (${query.get('error') ?? 'no error given'})`);
    const token = await this.json<{ access_token?: unknown; error?: unknown }>(
      this.endpoints.token,
      {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          client_id: this.provider.clientId,
          client_secret: this.provider.clientSecret,
          code,
          redirect_uri: this.redirectUri,
          code_verifier: flow.codeVerifier,
        }).toString(),
      },
    );
    if (typeof token.access_token !== 'string') {
      const reason = typeof token.error === 'string' ? token.error : 'no access_token';
      throw new ProviderRefused(`token refused (${reason})`);
    }
    const auth = { Authorization: `Bearer ${token.access_token}` };
    const user = await this.json<{ id?: unknown; login?: unknown }>(`${this.endpoints.api}/user`, {
      headers: auth,
    });
    if (typeof user.id !== 'number' && typeof user.id !== 'string') {
      throw new ProviderRefused('no user id in /user');
    }
    const emails = await this.json<GitHubEmail[]>(`${this.endpoints.api}/user/emails`, {
      headers: auth,
    });
    const listed = Array.isArray(emails)
      ? emails.filter((item): item is GitHubEmail & { email: string } => {
          return typeof item?.email === 'string';
        })
      : [];
    const chosen = listed.find((item) => item.primary === true && item.verified === true);
    return {
      subject: String(user.id),
      email: chosen?.email ?? null,
      emailVerified: chosen !== undefined,
      username: typeof user.login === 'string' ? user.login : null,
      authTime: null,
    };
  }

  private async json<T>(url: string, init: RequestInit): Promise<T> {
    const response = await fetch(url, {
      ...init,
      headers: {
        Accept: 'application/json',
        'User-Agent': 'auth-service',
        ...(init.headers as Record<string, string>),
      },
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    if (!response.ok)
      throw new ProviderRefused(`${new URL(url).pathname} answered ${response.status}`);
    return (await response.json()) as T;
  }
}
