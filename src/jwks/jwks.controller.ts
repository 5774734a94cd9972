import { Controller, Get, Header, applyDecorators } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { SkipThrottle } from '@nestjs/throttler';
import { JwkSetModel } from '../openapi/api-models';
import {
  ApiErrors,
  CACHE_FOR_FIVE_MINUTES,
  PUBLIC_FIVE_MINUTES,
} from '../openapi/api-responses.decorator';
import { Public } from '../auth/decorators/public.decorator';
import { AccessTokensService, JwkSet } from '../tokens/access-tokens.service';
import { API_JWKS_PATH, JWKS_PATH } from './well-known.paths';

/**
 * Not rate-limited: verifiers fetch the key set again whenever they meet an unknown `kid`, often
 * many of them behind one address, and the answer is a precomputed document that costs nothing
 * to serve. Both addresses answer alike, each with its own operation id for client generators.
 */
const JwkSetRoute = (path: string, where: string) =>
  applyDecorators(
    Get(path),
    ApiOperation({
      summary: `The public keys that verify access tokens (a JWK Set, no envelope)${where}`,
      description:
        'A standard JWK Set (RFC 7517) that JWT libraries read as it is; an access token names ' +
        'its key with `kid`. Not rate-limited; caches may keep it five minutes.',
    }),
    Public(),
    ApiOkResponse({
      type: JwkSetModel,
      description: 'Empty `keys` with JWT_ALGORITHM=HS256.',
      headers: CACHE_FOR_FIVE_MINUTES,
    }),
    ApiErrors('INTERNAL_ERROR'),
    SkipThrottle({ general: true }),
    Header('Cache-Control', PUBLIC_FIVE_MINUTES),
  );

/**
 * The public keys that verify access tokens, as a standard JWK Set (RFC 7517), not the envelope:
 * other services' JWT libraries read this document as it is. Empty for HS256.
 */
@ApiTags('tokens')
@Controller()
export class JwksController {
  constructor(private readonly tokens: AccessTokensService) {}

  /** At the origin's root, where verifiers look by default. */
  @JwkSetRoute(JWKS_PATH, '')
  jwks(): Readonly<JwkSet> {
    return this.tokens.jwks;
  }

  /** Under the API prefix, where it was first published and verifiers may be configured so. */
  @JwkSetRoute(API_JWKS_PATH, ', where it was first published')
  apiJwks(): Readonly<JwkSet> {
    return this.tokens.jwks;
  }
}
