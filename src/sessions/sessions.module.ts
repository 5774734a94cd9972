import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ConfigSectionsModule } from '../config/config.module';
import { DatabaseModule } from '../database/database.module';
import { EventsModule } from '../events/events.module';
import { MetricsModule } from '../metrics/metrics.module';
import { TokensModule } from '../tokens/tokens.module';
import { UsersModule } from '../users/users.module';
import { RefreshRotation } from './refresh-rotation';
import { RefreshSession } from './refresh-session.entity';
import { SessionJanitor } from './session-janitor.service';
import { SessionLifetime } from './session-lifetime';
import { SessionRows } from './session-rows';
import { SessionsService } from './sessions.service';

/**
 * Sessions (refresh-token families), end to end: the one module that reads and writes
 * refresh_sessions. TokensModule gives it the refresh tokens' signer; UsersModule the users
 * whose access tokens a revocation ends. Auth, account, sessions and admin ask SessionsService.
 */
@Module({
  imports: [
    ConfigSectionsModule,
    DatabaseModule,
    EventsModule,
    MetricsModule,
    TokensModule,
    UsersModule,
    TypeOrmModule.forFeature([RefreshSession]),
  ],
  providers: [SessionsService, RefreshRotation, SessionRows, SessionLifetime, SessionJanitor],
  exports: [SessionsService, SessionLifetime],
})
export class SessionsModule {}
