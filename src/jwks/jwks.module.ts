import { Module } from '@nestjs/common';
import { ConfigSectionsModule } from '../config/config.module';
import { TokensModule } from '../tokens/tokens.module';
import { JwksController } from './jwks.controller';
import { ServerMetadataController } from './server-metadata.controller';

/**
 * `GET /.well-known/jwks.json` (also under `/api/v1`): the access-token public keys for other
 * services; `GET /.well-known/oauth-authorization-server`: where a verifier that knows only the
 * issuer finds them.
 */
@Module({
  imports: [ConfigSectionsModule, TokensModule],
  controllers: [JwksController, ServerMetadataController],
})
export class JwksModule {}
