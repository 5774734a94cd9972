import { Module } from '@nestjs/common';
import { JwtModule } from '@nestjs/jwt';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditModule } from '../audit/audit.module';
import { ConfigSectionsModule } from '../config/config.module';
import { JwtConfig } from '../config/config.sections';
import { DatabaseModule } from '../database/database.module';
import { UsersModule } from '../users/users.module';
import { AccessTokenKeys } from './access-token-keys';
import { AccessTokensService } from './access-tokens.service';
import { REFRESH_JWT, accessJwtOptions, refreshJwtService } from './jwt-options';
import { RefreshSession } from './refresh-session.entity';
import { RefreshTokenKey } from './refresh-token-key';
import { RefreshTokensService } from './refresh-tokens.service';
import { RevocationService } from './revocation.service';
import { SessionLifetime } from './session-lifetime';
import { TokenJanitor } from './token-janitor.service';
import { TokenKeysModule } from './token-keys.module';
import { VerificationToken } from './verification-token.entity';
import { VerificationTokensService } from './verification-tokens.service';

@Module({
  imports: [
    AuditModule,
    ConfigSectionsModule,
    DatabaseModule,
    UsersModule,
    TokenKeysModule,
    TypeOrmModule.forFeature([RefreshSession, VerificationToken]),
    // The JwtService a module importing this one injects: it signs and verifies access tokens.
    JwtModule.registerAsync({
      imports: [ConfigSectionsModule, TokenKeysModule],
      inject: [JwtConfig, AccessTokenKeys],
      useFactory: accessJwtOptions,
    }),
  ],
  providers: [
    AccessTokensService,
    RefreshTokensService,
    { provide: REFRESH_JWT, inject: [RefreshTokenKey], useFactory: refreshJwtService },
    RevocationService,
    SessionLifetime,
    VerificationTokensService,
    TokenJanitor,
  ],
  exports: [
    AccessTokensService,
    RefreshTokensService,
    RevocationService,
    SessionLifetime,
    VerificationTokensService,
    TokenKeysModule,
    JwtModule,
  ],
})
export class TokensModule {}
