import { Controller, Get, Header } from '@nestjs/common';
import { SkipThrottle } from '@nestjs/throttler';
import { AccessTokensService, JwkSet } from '../tokens/access-tokens.service';

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
  @SkipThrottle({ general: true })
  @Header('Cache-Control', 'public, max-age=300')
  jwks(): Readonly<JwkSet> {
    return this.tokens.jwks;
  }
}
