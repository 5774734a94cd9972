import { Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module';
import { AuthModule } from '../auth/auth.module';
import { DatabaseModule } from '../database/database.module';
import { TokensModule } from '../tokens/tokens.module';
import { SessionsController } from './sessions.controller';
import { SessionsService } from './sessions.service';

/**
 * "My sessions": AuthModule for what `@Authenticated()` runs and the cookies, TokensModule for
 * the revocation, AuditModule for the trail.
 */
@Module({
  imports: [AuditModule, AuthModule, DatabaseModule, TokensModule],
  controllers: [SessionsController],
  providers: [SessionsService],
})
export class SessionsModule {}
