import { Module } from '@nestjs/common';
import { EventsModule } from '../events/events.module';
import { AuthModule } from '../auth/auth.module';
import { SignInMethodsModule } from '../auth/sign-in-methods.module';
import { SignInPoliciesModule } from '../auth/sign-in-policies.module';
import { ConfigSectionsModule } from '../config/config.module';
import { DatabaseModule } from '../database/database.module';
import { LinkedIdentitiesModule } from '../linked-identities/linked-identities.module';
import { MailModule } from '../mail/mail.module';
import { SessionsModule } from '../sessions/sessions.module';
import { TokensModule } from '../tokens/tokens.module';
import { UsersModule } from '../users/users.module';
import { EmailChangeController } from './email-change.controller';
import { EmailChangedNotice } from './email-changed-notice.service';
import { EmailChangeService } from './email-change.service';
import { EmailChangeUndoService } from './email-change-undo.service';
import { ProfileController } from './profile.controller';
import { OwnSessionsService } from './own-sessions.service';
import { ProfileService } from './profile.service';
import { SessionsController } from './sessions.controller';

/**
 * The signed-in user's own account: profile, email and sessions (its password, passkeys and
 * second factor are their modules'), behind the global guard (`@Authenticated()`). AuthModule
 * gives the cookies, the hasher and the link policy; the rest is imported from the modules that
 * own it.
 */
@Module({
  imports: [
    SignInMethodsModule,
    SignInPoliciesModule,
    AuthModule,
    EventsModule,
    ConfigSectionsModule,
    DatabaseModule,
    LinkedIdentitiesModule,
    MailModule,
    SessionsModule,
    TokensModule,
    UsersModule,
  ],
  controllers: [ProfileController, EmailChangeController, SessionsController],
  providers: [
    ProfileService,
    EmailChangeService,
    EmailChangedNotice,
    EmailChangeUndoService,
    OwnSessionsService,
  ],
})
export class AccountModule {}
