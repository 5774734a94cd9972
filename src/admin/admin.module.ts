import { Module } from '@nestjs/common';
import { AccountRemovalModule } from '../account-removal/account-removal.module';
import { EventsModule } from '../events/events.module';
import { DatabaseModule } from '../database/database.module';
import { EmailLinksModule } from '../email-links/email-links.module';
import { LinkedIdentitiesModule } from '../linked-identities/linked-identities.module';
import { SecondFactorModule } from '../second-factor/second-factor.module';
import { SessionsModule } from '../sessions/sessions.module';
import { TokensModule } from '../tokens/tokens.module';
import { UsersModule } from '../users/users.module';
import { AdminUsersController } from './admin-users.controller';
import { AdminUsersService } from './admin-users.service';

/**
 * `/admin/users`, `@Authenticated('admin')` (checked by the global guard): EmailLinksModule for
 * the reset mail, UsersModule for the directory, TokensModule to end sessions, AccountRemovalModule
 * to delete.
 */
@Module({
  imports: [
    AccountRemovalModule,
    EventsModule,
    DatabaseModule,
    EmailLinksModule,
    LinkedIdentitiesModule,
    SecondFactorModule,
    SessionsModule,
    TokensModule,
    UsersModule,
  ],
  controllers: [AdminUsersController],
  providers: [AdminUsersService],
})
export class AdminModule {}
