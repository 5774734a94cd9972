import { Module } from '@nestjs/common';
import { JwtModule } from '@nestjs/jwt';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ConfigSectionsModule } from '../config/config.module';
import { JwtConfig } from '../config/config.sections';
import { DatabaseModule } from '../database/database.module';
import { HooksModule } from '../hooks/hooks.module';
import { AccessTokenKeys } from './access-token-keys';
import { AccessTokensService } from './access-tokens.service';
import { REFRESH_JWT, accessJwtOptions, refreshJwtService } from './jwt-options';
import { RefreshTokenKey } from './refresh-token-key';
import { SessionClaims } from './session-claims';
import { TokenJanitor } from './token-janitor.service';
import { TokenKeysModule } from './token-keys.module';
import { VerificationToken } from './verification-token.entity';
import { VerificationTokensService } from './verification-tokens.service';

/**
 * Keys and signers: access tokens (JwtModule's JwtService, exported), refresh tokens' own signer
 * (REFRESH_JWT: the sessions module signs with it), and the emailed single-use tokens.
 */
@Module({
  imports: [
    ConfigSectionsModule,
    DatabaseModule,
    // The custom_access_token hooks, asked whenever an access token is issued.
    HooksModule,
    TokenKeysModule,
    TypeOrmModule.forFeature([VerificationToken]),
    // The JwtService a module importing this one injects: it signs and verifies access tokens.
    JwtModule.registerAsync({
      imports: [ConfigSectionsModule, TokenKeysModule],
      inject: [JwtConfig, AccessTokenKeys],
      useFactory: accessJwtOptions,
    }),
  ],
  providers: [
    AccessTokensService,
    SessionClaims,
    { provide: REFRESH_JWT, inject: [RefreshTokenKey], useFactory: refreshJwtService },
    VerificationTokensService,
    TokenJanitor,
  ],
  exports: [
    AccessTokensService,
    SessionClaims,
    REFRESH_JWT,
    VerificationTokensService,
    TokenKeysModule,
    JwtModule,
  ],
})
export class TokensModule {}
