import { Module } from '@nestjs/common';
import { EventsModule } from '../events/events.module';
import { AuthModule } from '../auth/auth.module';
import { DatabaseModule } from '../database/database.module';
import { LinkedIdentitiesModule } from '../linked-identities/linked-identities.module';
import { SecondFactorModule } from '../second-factor/second-factor.module';
import { OrganizationsModule } from '../organizations/organizations.module';
import { PasskeysModule } from '../passkeys/passkeys.module';
import { SessionsModule } from '../sessions/sessions.module';
import { TokensModule } from '../tokens/tokens.module';
import { UsersModule } from '../users/users.module';
import { AccountRemoval } from './account-removal.service';
import { OwnAccountController } from './own-account.controller';

/**
 * Deleting an account, by its owner (`DELETE /users/me`, here) or by an administrator
 * (AdminModule imports AccountRemoval). A folder of its own: it asks the users and tokens
 * modules, which own what it removes, to remove it in one transaction.
 */
@Module({
  imports: [
    AuthModule,
    EventsModule,
    DatabaseModule,
    LinkedIdentitiesModule,
    SecondFactorModule,
    OrganizationsModule,
    PasskeysModule,
    SessionsModule,
    TokensModule,
    UsersModule,
  ],
  controllers: [OwnAccountController],
  providers: [AccountRemoval],
  exports: [AccountRemoval],
})
export class AccountRemovalModule {}
