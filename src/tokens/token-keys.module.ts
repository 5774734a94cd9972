import { Module } from '@nestjs/common';
import { ConfigSectionsModule } from '../config/config.module';
import { JwtConfig } from '../config/config.sections';
import { AccessTokenKeys } from './access-token-keys';
import { RefreshTokenKey } from './refresh-token-key';

/**
 * The token keys, made once: JwtModule's factory, the tokens services and the passport
 * strategies all share these instances.
 */
@Module({
  imports: [ConfigSectionsModule],
  providers: [
    {
      provide: AccessTokenKeys,
      inject: [JwtConfig],
      useFactory: (jwt: JwtConfig) => new AccessTokenKeys(jwt.access),
    },
    {
      provide: RefreshTokenKey,
      inject: [JwtConfig],
      useFactory: (jwt: JwtConfig) => new RefreshTokenKey(jwt),
    },
  ],
  exports: [AccessTokenKeys, RefreshTokenKey],
})
export class TokenKeysModule {}
