import { Module } from '@nestjs/common';
import { EventsModule } from '../events/events.module';
import { AuthModule } from '../auth/auth.module';
import { ConfigSectionsModule } from '../config/config.module';
import { DatabaseModule } from '../database/database.module';
import { MailModule } from '../mail/mail.module';
import { SessionsModule } from '../sessions/sessions.module';
import { TokensModule } from '../tokens/tokens.module';
import { UsersModule } from '../users/users.module';
import { EmailFlowsController } from './email-flows.controller';
import { EmailFlowsService } from './email-flows.service';
import { EmailVerification } from './email-verification.service';
import { LinkPagesController } from './link-pages.controller';
import { LinkRequests } from './link-requests.service';
import { PasswordReset } from './password-reset.service';
import { ResetPasswordBodyPipe } from './reset-password-body.pipe';

/**
 * The emailed verification and password-reset links: asking for one, the pages they open and
 * following them. Administrators send the reset mail through EmailFlowsService.
 */
@Module({
  imports: [
    EventsModule,
    AuthModule,
    ConfigSectionsModule,
    DatabaseModule,
    MailModule,
    SessionsModule,
    TokensModule,
    UsersModule,
  ],
  controllers: [EmailFlowsController, LinkPagesController],
  providers: [
    EmailFlowsService,
    EmailVerification,
    LinkRequests,
    PasswordReset,
    ResetPasswordBodyPipe,
  ],
  exports: [EmailFlowsService],
})
export class EmailLinksModule {}
