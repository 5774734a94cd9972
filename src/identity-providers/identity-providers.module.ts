import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { EventsModule } from '../events/events.module';
import { AuthModule } from '../auth/auth.module';
import { SignInPoliciesModule } from '../auth/sign-in-policies.module';
import { ConfigSectionsModule } from '../config/config.module';
import { DatabaseModule } from '../database/database.module';
import { LinkedIdentitiesModule } from '../linked-identities/linked-identities.module';
import { HooksModule } from '../hooks/hooks.module';
import { MailModule } from '../mail/mail.module';
import { MetricsModule } from '../metrics/metrics.module';
import { SignInMethodsModule } from '../auth/sign-in-methods.module';
import { UsersModule } from '../users/users.module';
import { ProviderSignIn } from './provider-sign-in.service';
import { FinishedFlow } from './finished-flow.entity';
import { ProviderFlowStates } from './provider-flow-states.service';
import { IdentityProvidersController } from './identity-providers.controller';
import { FlowCookie } from './flow-cookie';
import { LinkedIdentitiesController } from './linked-identities.controller';
import { IdentityAccounts } from './identity-accounts.service';
import { IdentityLinkedNotice } from './identity-linked-notice.service';
import { IdentityLinks } from './identity-links.service';
import { ProviderClients } from './provider-clients.service';
import { ProviderStepUpController } from './provider-step-up.controller';
import { ProviderStepUp } from './provider-step-up.service';

/**
 * Signing in with identity providers (AUTH_PROVIDERS), linking them to accounts, stepping a
 * session up through them, and enterprise SSO by email domain. Sessions start through
 * AuthModule's AuthService, as every sign-in's do, and step up through its Reauthentication.
 */
@Module({
  imports: [
    SignInPoliciesModule,
    EventsModule,
    AuthModule,
    ConfigSectionsModule,
    DatabaseModule,
    LinkedIdentitiesModule,
    HooksModule,
    MailModule,
    MetricsModule,
    SignInMethodsModule,
    UsersModule,
    TypeOrmModule.forFeature([FinishedFlow]),
  ],
  controllers: [IdentityProvidersController, LinkedIdentitiesController, ProviderStepUpController],
  providers: [
    ProviderSignIn,
    ProviderFlowStates,
    FlowCookie,
    IdentityAccounts,
    IdentityLinkedNotice,
    IdentityLinks,
    ProviderClients,
    ProviderStepUp,
  ],
})
export class IdentityProvidersModule {}
