import { Controller, Get, Header } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { SkipThrottle } from '@nestjs/throttler';
import { AppConfig, JwtConfig } from '../config/config.sections';
import { AuthorizationServerMetadataModel } from '../openapi/api-models';
import {
  ApiErrors,
  CACHE_FOR_FIVE_MINUTES,
  PUBLIC_FIVE_MINUTES,
} from '../openapi/api-responses.decorator';
import { Public } from '../auth/decorators/public.decorator';
import {
  AuthorizationServerMetadata,
  authorizationServerMetadata,
} from './authorization-server-metadata';
import { METADATA_PATH } from './well-known.paths';

@ApiTags('tokens')
@Controller()
export class ServerMetadataController {
  private readonly metadata: Readonly<AuthorizationServerMetadata>;

  constructor(app: AppConfig, jwt: JwtConfig) {
    this.metadata = authorizationServerMetadata(app, jwt);
  }

  /**
   * RFC 8414 metadata, so a verifier configured with the issuer alone finds the key set. The same
   * with HS256: its `jwks_uri` then names the empty key set, a valid document for a verifier set
   * up ahead of a switch. Not rate-limited and cached like the key set, for the same callers.
   */
  @Get(METADATA_PATH)
  @ApiOperation({
    operationId: 'authorizationServerMetadata',
    summary: 'Authorization-server metadata (RFC 8414, no envelope): the issuer and its key set',
    description:
      'Lets a verifier configured with the issuer alone find the key set. Not rate-limited; ' +
      'caches may keep it five minutes.',
  })
  @Public()
  @ApiOkResponse({
    type: AuthorizationServerMetadataModel,
    description: 'The same with HS256: `jwks_uri` then names an empty key set.',
    headers: CACHE_FOR_FIVE_MINUTES,
  })
  @ApiErrors('INTERNAL_ERROR')
  @SkipThrottle({ general: true })
  @Header('Cache-Control', PUBLIC_FIVE_MINUTES)
  serverMetadata(): Readonly<AuthorizationServerMetadata> {
    return this.metadata;
  }
}
