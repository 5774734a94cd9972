import { Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module';
import { ConfigSectionsModule } from '../config/config.module';
import { DatabaseModule } from '../database/database.module';
import { UsersModule } from '../users/users.module';
import { AccessTokensService } from './access-tokens.service';
import { RefreshTokensService } from './refresh-tokens.service';
import { RevocationService } from './revocation.service';
import { TokenJanitor } from './token-janitor.service';
import { VerificationTokensService } from './verification-tokens.service';

@Module({
  imports: [AuditModule, ConfigSectionsModule, DatabaseModule, UsersModule],
  providers: [
    AccessTokensService,
    RefreshTokensService,
    RevocationService,
    VerificationTokensService,
    TokenJanitor,
  ],
  exports: [
    AccessTokensService,
    RefreshTokensService,
    RevocationService,
    VerificationTokensService,
  ],
})
export class TokensModule {}
