import { Controller, Get, Header } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { SkipThrottle } from '@nestjs/throttler';
import { AppConfig, JwtConfig } from '../config/config.sections';
import { AuthorizationServerMetadataModel } from '../openapi/api-models';
import { ApiErrors } from '../openapi/api-responses.decorator';
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
    summary: 'Authorization-server metadata (RFC 8414, no envelope): the issuer and its key set',
  })
  @ApiOkResponse({
    type: AuthorizationServerMetadataModel,
    description: 'The same with HS256: `jwks_uri` then names an empty key set.',
  })
  @ApiErrors('INTERNAL_ERROR')
  @SkipThrottle({ general: true })
  @Header('Cache-Control', 'public, max-age=300')
  serverMetadata(): Readonly<AuthorizationServerMetadata> {
    return this.metadata;
  }
}
