import { Module } from '@nestjs/common';
import { TokensModule } from '../tokens/tokens.module';
import { JwksController } from './jwks.controller';

/** `GET /.well-known/jwks.json`: the access-token public keys for other services. */
@Module({
  imports: [TokensModule],
  controllers: [JwksController],
})
export class JwksModule {}
