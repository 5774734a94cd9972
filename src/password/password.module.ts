import { Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module';
import { AuthModule } from '../auth/auth.module';
import { SignInMethodsModule } from '../auth/sign-in-methods.module';
import { ConfigSectionsModule } from '../config/config.module';
import { DatabaseModule } from '../database/database.module';
import { EventsModule } from '../events/events.module';
import { MailModule } from '../mail/mail.module';
import { SessionsModule } from '../sessions/sessions.module';
import { TokensModule } from '../tokens/tokens.module';
import { UsersModule } from '../users/users.module';
import { PasswordChangeService } from './password-change.service';
import { PasswordLogin } from './password-login.service';
import { PasswordSignInController } from './password-sign-in.controller';
import { PasswordWayIn } from './password.way-in';
import { PasswordController } from './password.controller';
import { RegistrationMails } from './registration-mails.service';
import { RegistrationService } from './registration.service';

/**
 * The password as a way in: registering with one, signing in with it, and changing it while
 * signed in. It registers itself with the core (PasswordWayIn) and starts sessions through the
 * core's AuthService. The emailed reset link is the email links' (src/email-links).
 */
@Module({
  imports: [
    AuditModule,
    AuthModule,
    ConfigSectionsModule,
    DatabaseModule,
    EventsModule,
    MailModule,
    SessionsModule,
    SignInMethodsModule,
    TokensModule,
    UsersModule,
  ],
  controllers: [PasswordSignInController, PasswordController],
  providers: [
    PasswordChangeService,
    PasswordLogin,
    PasswordWayIn,
    RegistrationMails,
    RegistrationService,
  ],
})
export class PasswordModule {}
