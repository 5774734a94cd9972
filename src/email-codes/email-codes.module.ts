import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { EventsModule } from '../events/events.module';
import { AuthModule } from '../auth/auth.module';
import { SignInPoliciesModule } from '../auth/sign-in-policies.module';
import { CredentialsModule } from '../auth/credentials.module';
import { SignInMethodsModule } from '../auth/sign-in-methods.module';
import { ConfigSectionsModule } from '../config/config.module';
import { DatabaseModule } from '../database/database.module';
import { MailModule } from '../mail/mail.module';
import { MetricsModule } from '../metrics/metrics.module';
import { SessionsModule } from '../sessions/sessions.module';
import { TokensModule } from '../tokens/tokens.module';
import { UsersModule } from '../users/users.module';
import { EmailCodeFirstProof } from './email-code-first-proof.service';
import { EmailCodeMails } from './email-code-mails.service';
import { EmailCodeReauthenticationController } from './email-code-reauthentication.controller';
import { EmailCodeSignInController } from './email-code-sign-in.controller';
import { EmailCodeSignIn } from './email-code-sign-in.service';
import { EmailCodeWayIn } from './email-code.way-in';
import { EmailCode } from './email-code.entity';
import { EmailCodes } from './email-codes.service';
import { ReauthenticationCodes } from './reauthentication-codes.service';

/**
 * A code mailed to the account as a way in (EMAIL_CODE_LOGIN), and as a step-up's proof: its
 * routes, its mails, and the only module that touches its table. It registers itself with the
 * core (EmailCodeWayIn) and starts sessions through the core's AuthService.
 */
@Module({
  imports: [
    SignInPoliciesModule,
    CredentialsModule,
    EventsModule,
    AuthModule,
    ConfigSectionsModule,
    DatabaseModule,
    MailModule,
    MetricsModule,
    SessionsModule,
    SignInMethodsModule,
    TokensModule,
    UsersModule,
    TypeOrmModule.forFeature([EmailCode]),
  ],
  controllers: [EmailCodeSignInController, EmailCodeReauthenticationController],
  providers: [
    EmailCodes,
    EmailCodeFirstProof,
    EmailCodeMails,
    EmailCodeSignIn,
    EmailCodeWayIn,
    ReauthenticationCodes,
  ],
})
export class EmailCodesModule {}
