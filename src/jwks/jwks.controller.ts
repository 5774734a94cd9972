import { Controller, Get, Header } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { SkipThrottle } from '@nestjs/throttler';
import { JwkSetModel } from '../openapi/api-models';
import { ApiErrors } from '../openapi/api-responses.decorator';
import { AccessTokensService, JwkSet } from '../tokens/access-tokens.service';

@ApiTags('tokens')
@Controller('.well-known')
export class JwksController {
  constructor(private readonly tokens: AccessTokensService) {}

  /**
   * The public keys that verify access tokens, as a standard JWK Set (RFC 7517), not the
   * envelope: other services' JWT libraries read this document as it is. Empty for HS256. Not
   * rate-limited: verifiers fetch it again whenever they meet an unknown `kid`, often many of them
   * behind one address, and the answer is a precomputed document that costs nothing to serve.
   */
  @Get('jwks.json')
  @ApiOperation({ summary: 'The public keys that verify access tokens (a JWK Set, no envelope)' })
  @ApiOkResponse({ type: JwkSetModel, description: 'Empty `keys` with JWT_ALGORITHM=HS256.' })
  @ApiErrors('INTERNAL_ERROR')
  @SkipThrottle({ general: true })
  @Header('Cache-Control', 'public, max-age=300')
  jwks(): Readonly<JwkSet> {
    return this.tokens.jwks;
  }
}
