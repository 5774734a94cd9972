import { AppConfig, JwtConfig } from '../config/config.sections';
import { DOCS_PATH } from '../openapi/api-docs';
import { JWKS_PATH } from './well-known.paths';

/**
 * RFC 8414 metadata, limited to what is true of this service. It is not an OAuth authorization
 * server: it has no authorization or token endpoint in the OAuth sense, so the two fields the RFC
 * requires about them are empty rather than left out (left out, `grant_types_supported` would
 * mean authorization_code and implicit). It is not OpenID Connect either: no `id_token_*` field.
 */
export interface AuthorizationServerMetadata {
  issuer: string;
  jwks_uri: string;
  response_types_supported: string[];
  grant_types_supported: string[];
  service_documentation?: string;
}

export function authorizationServerMetadata(
  app: Pick<AppConfig, 'publicUrl' | 'apiDocs'>,
  jwt: Pick<JwtConfig, 'issuer'>,
): Readonly<AuthorizationServerMetadata> {
  return Object.freeze({
    issuer: jwt.issuer,
    // Absolute, as RFC 8414 asks; PUBLIC_URL is where clients reach the service.
    jwks_uri: `${app.publicUrl}/${JWKS_PATH}`,
    response_types_supported: [],
    grant_types_supported: [],
    ...(app.apiDocs ? { service_documentation: `${app.publicUrl}/${DOCS_PATH}` } : {}),
  });
}
