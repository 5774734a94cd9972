import { Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module';
import { AuthModule } from '../auth/auth.module';
import { DatabaseModule } from '../database/database.module';
import { UsersModule } from '../users/users.module';
import { AccountRemoval } from './account-removal.service';
import { OwnAccountController } from './own-account.controller';

/**
 * Deleting an account, by its owner (`DELETE /users/me`, here) or by an administrator
 * (AdminModule imports AccountRemoval). A folder of its own: it removes what belongs to the
 * users, tokens and audit modules, none of which may import the others' internals.
 */
@Module({
  imports: [AuthModule, AuditModule, DatabaseModule, UsersModule],
  controllers: [OwnAccountController],
  providers: [AccountRemoval],
  exports: [AccountRemoval],
})
export class AccountRemovalModule {}
