import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditModule } from '../audit/audit.module';
import { AuthModule } from '../auth/auth.module';
import { ConfigSectionsModule } from '../config/config.module';
import { DatabaseModule } from '../database/database.module';
import { IdentitiesModule } from '../identities/identities.module';
import { MailModule } from '../mail/mail.module';
import { MetricsModule } from '../metrics/metrics.module';
import { PasskeysModule } from '../passkeys/passkeys.module';
import { UsersModule } from '../users/users.module';
import { FederatedSignIn } from './federated-sign-in.service';
import { FinishedFlow } from './finished-flow.entity';
import { FederationStates } from './federation-states.service';
import { FederationController } from './federation.controller';
import { FlowCookie } from './flow-cookie';
import { IdentitiesController } from './identities.controller';
import { IdentityLinks } from './identity-links.service';
import { ProviderClients } from './provider-clients.service';

/**
 * Signing in with identity providers (AUTH_PROVIDERS), linking them to accounts, and enterprise
 * SSO by email domain. Sessions start through AuthModule's AuthService, as every sign-in's do.
 */
@Module({
  imports: [
    AuditModule,
    AuthModule,
    ConfigSectionsModule,
    DatabaseModule,
    IdentitiesModule,
    MailModule,
    MetricsModule,
    PasskeysModule,
    UsersModule,
    TypeOrmModule.forFeature([FinishedFlow]),
  ],
  controllers: [FederationController, IdentitiesController],
  providers: [FederatedSignIn, FederationStates, FlowCookie, IdentityLinks, ProviderClients],
})
export class FederationModule {}
