import { applyDecorators } from '@nestjs/common';
import { ApiQuery, ApiResponse } from '@nestjs/swagger';
import { FLOW_TTL_SECONDS } from './provider-flow-states.service';

/*
 * How the OpenAPI document describes the round trip's redirects: a browser follows them, so what
 * matters is where they go (`Location`), the cookies they set and, at the callback, what the
 * provider sends. They have no body on either platform.
 */

const LOCATION = (description: string) => ({ description, schema: { type: 'string' } });

/** The 302 of `GET /auth/providers/:id/start` and `GET /users/me/identities/:id/start`. */
export function ApiProviderRedirect(): MethodDecorator {
  return ApiResponse({
    status: 302,
    description: 'To the provider; no body.',
    headers: {
      Location: LOCATION(
        "The provider's authorization endpoint: an authorization code request with PKCE " +
          '(S256), `state` and, for OpenID Connect, `nonce`.',
      ),
      'Set-Cookie': {
        description:
          "auth_flow, the browser's side of its flows (the value it has, if any, set again): " +
          `HttpOnly, SameSite=Lax, Path the API's root (/api/v1), Max-Age ${FLOW_TTL_SECONDS}, ` +
          'Secure unless COOKIE_SECURE=false.',
        schema: { type: 'string' },
      },
    },
  });
}

const query = (name: string, required: boolean, description: string) =>
  ApiQuery({ name, required, type: String, description });

/** `GET /auth/providers/:id/callback`: what the provider sends, and the 302 back to the app. */
export function ApiProviderCallback(): MethodDecorator {
  return applyDecorators(
    query(
      'state',
      true,
      'The flow the start opened (good once, for ten minutes), which must be one of this ' +
        "browser's (its auth_flow cookie).",
    ),
    query(
      'code',
      false,
      "The authorization code, exchanged with the PKCE verifier at the provider's token " +
        'endpoint. Absent when the provider answers `error`.',
    ),
    query(
      'iss',
      false,
      "RFC 9207: the provider's issuer, refused unless it is the configured one; required of an " +
        'OpenID provider whose metadata says `authorization_response_iss_parameter_supported`.',
    ),
    query(
      'error',
      false,
      'RFC 6749 §4.1.2.1: the provider refused (`access_denied`: the person said no). Ends at ' +
        '`redirect_to?error=PROVIDER_ERROR`.',
    ),
    query('error_description', false, "The provider's words about `error`; not shown to anyone."),
    ApiResponse({
      status: 302,
      description: 'Back to the app; no body.',
      headers: {
        Location: LOCATION(
          "The flow's `redirect_to`: as it is after a sign-in or a link; with " +
            '`?error=ACCOUNT_EXISTS` or `?error=PROVIDER_ERROR` after a refusal; with ' +
            '`#mfa_required=true&challenge=…&methods=…` when a second step is pending.',
        ),
        'Set-Cookie': {
          description:
            'After a sign-in with no second step pending only: access_token and refresh_token, ' +
            'as login sets them. No cookie otherwise.',
          schema: { type: 'string' },
        },
      },
    }),
  );
}
