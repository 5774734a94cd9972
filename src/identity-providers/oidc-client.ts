import * as oidc from 'openid-client';
import { IdentityProvider } from '../config/config.sections';
import { ProviderProfile } from './provider-profile';

/** Seconds any request to a provider may take. */
const TIMEOUT_SECONDS = 10;

/**
 * An OpenID Connect provider through openid-client: discovery (once, kept; tried again after a
 * failure), the authorization URL with PKCE, state and nonce, and the code exchange, which checks
 * state, the ID token (issuer, audience, signature, expiry) and its nonce.
 */
export class OidcClient {
  private configuration: Promise<oidc.Configuration> | undefined;

  constructor(
    private readonly provider: IdentityProvider,
    private readonly redirectUri: string,
  ) {}

  /**
   * `fresh`: a step-up, which must be a new sign-in at the provider, not a session it already
   * holds: OpenID Connect's `prompt=login` and `max_age=0` ask for one (and for `auth_time` in
   * the ID token, which the callback checks).
   */
  async authorizationUrl(
    flow: { state: string; nonce: string; codeVerifier: string },
    fresh = false,
  ) {
    const config = await this.discover();
    return oidc
      .buildAuthorizationUrl(config, {
        redirect_uri: this.redirectUri,
        scope: this.provider.scopes.join(' '),
        state: flow.state,
        nonce: flow.nonce,
        code_challenge: await oidc.calculatePKCECodeChallenge(flow.codeVerifier),
        code_challenge_method: 'S256',
        ...(fresh ? { prompt: 'login', max_age: '0' } : {}),
      })
      .toString();
  }

  async profile(
    query: URLSearchParams,
    flow: { state: string; nonce: string; codeVerifier: string },
  ): Promise<ProviderProfile> {
    const config = await this.discover();
    const answer = new URL(this.redirectUri);
    answer.search = query.toString();
    const tokens = await oidc.authorizationCodeGrant(config, answer, {
      pkceCodeVerifier: flow.codeVerifier,
      expectedState: flow.state,
      expectedNonce: flow.nonce,
      idTokenExpected: true,
    });
    let claims: Record<string, unknown> = { ...tokens.claims() };
    if (typeof claims.email !== 'string' && config.serverMetadata().userinfo_endpoint) {
      const info = await oidc.fetchUserInfo(config, tokens.access_token, String(claims.sub));
      claims = { ...info, ...claims, email: info.email, email_verified: info.email_verified };
    }
    return {
      subject: String(claims.sub),
      email: typeof claims.email === 'string' ? claims.email : null,
      // Only the provider's explicit word makes an address verified (a string "true" included,
      // as some providers send it).
      emailVerified: claims.email_verified === true || claims.email_verified === 'true',
      username: typeof claims.preferred_username === 'string' ? claims.preferred_username : null,
      authTime: typeof claims.auth_time === 'number' ? claims.auth_time : null,
    };
  }

  private discover(): Promise<oidc.Configuration> {
    this.configuration ??= this.discovery().catch((error: unknown) => {
      this.configuration = undefined;
      throw error;
    });
    return this.configuration;
  }

  private discovery(): Promise<oidc.Configuration> {
    const issuer = new URL(this.provider.issuer!);
    return oidc.discovery(
      issuer,
      this.provider.clientId,
      this.provider.clientSecret,
      oidc.ClientSecretPost(this.provider.clientSecret),
      {
        timeout: TIMEOUT_SECONDS,
        // Accepted at boot only outside production, and only on loopback.
        // openid-client checks an ID token from the token endpoint for issuer, audience,
        // expiry and nonce, but its signature (against the provider's JWKS) only with
        // non-repudiation checks on: without them a forged token would pass.
        execute: [
          ...(issuer.protocol === 'http:' ? [oidc.allowInsecureRequests] : []),
          oidc.enableNonRepudiationChecks,
        ],
      },
    );
  }
}
