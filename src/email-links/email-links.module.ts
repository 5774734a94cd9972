import { Module } from '@nestjs/common';
import { EventsModule } from '../events/events.module';
import { AuthModule } from '../auth/auth.module';
import { SignInPoliciesModule } from '../auth/sign-in-policies.module';
import { CredentialsModule } from '../auth/credentials.module';
import { ConfigSectionsModule } from '../config/config.module';
import { DatabaseModule } from '../database/database.module';
import { MailModule } from '../mail/mail.module';
import { SessionsModule } from '../sessions/sessions.module';
import { TokensModule } from '../tokens/tokens.module';
import { UsersModule } from '../users/users.module';
import { EmailLinksController } from './email-links.controller';
import { EmailLinksService } from './email-links.service';
import { EmailVerification } from './email-verification.service';
import { LinkPagesController } from './link-pages.controller';
import { LinkRequests } from './link-requests.service';
import { PasswordReset } from './password-reset.service';
import { ResetPasswordBodyPipe } from './reset-password-body.pipe';

/**
 * The emailed verification and password-reset links: asking for one, the pages they open and
 * following them. Administrators send the reset mail through EmailLinksService.
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
    SessionsModule,
    TokensModule,
    UsersModule,
  ],
  controllers: [EmailLinksController, LinkPagesController],
  providers: [
    EmailLinksService,
    EmailVerification,
    LinkRequests,
    PasswordReset,
    ResetPasswordBodyPipe,
  ],
  exports: [EmailLinksService],
})
export class EmailLinksModule {}
