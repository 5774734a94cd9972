import { Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module';
import { AuthModule } from '../auth/auth.module';
import { ConfigSectionsModule } from '../config/config.module';
import { DatabaseModule } from '../database/database.module';
import { IdentitiesModule } from '../identities/identities.module';
import { MailModule } from '../mail/mail.module';
import { MfaModule } from '../mfa/mfa.module';
import { PasskeysModule } from '../passkeys/passkeys.module';
import { SessionsModule } from '../sessions/sessions.module';
import { TokensModule } from '../tokens/tokens.module';
import { UsersModule } from '../users/users.module';
import { EmailChangeController } from './email-change.controller';
import { EmailChangeService } from './email-change.service';
import { EmailChangeUndoService } from './email-change-undo.service';
import { PasswordChangeService } from './password-change.service';
import { PasswordController } from './password.controller';
import { ProfileController } from './profile.controller';
import { MfaController } from './mfa.controller';
import { OwnSessionsService } from './own-sessions.service';
import { PasskeysController } from './passkeys.controller';
import { ProfileService } from './profile.service';
import { SessionsController } from './sessions.controller';

/**
 * The signed-in user's own account: profile, password, email, sessions, second factor and
 * passkeys, behind the global guard (`@Authenticated()`). AuthModule gives the cookies, the
 * hasher and the link policy; the rest is imported from the modules that own it.
 */
@Module({
  imports: [
    AuthModule,
    AuditModule,
    ConfigSectionsModule,
    DatabaseModule,
    IdentitiesModule,
    MailModule,
    MfaModule,
    PasskeysModule,
    SessionsModule,
    TokensModule,
    UsersModule,
  ],
  controllers: [
    ProfileController,
    PasswordController,
    EmailChangeController,
    SessionsController,
    MfaController,
    PasskeysController,
  ],
  providers: [
    ProfileService,
    PasswordChangeService,
    EmailChangeService,
    EmailChangeUndoService,
    OwnSessionsService,
  ],
})
export class AccountModule {}
