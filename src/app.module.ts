import { Module } from '@nestjs/common';
import { APP_FILTER, APP_PIPE } from '@nestjs/core';
import { AccountRemovalModule } from './account-removal/account-removal.module';
import { AdminModule } from './admin/admin.module';
import { AuditModule } from './audit/audit.module';
import { AuthModule } from './auth/auth.module';
import { AllExceptionsFilter } from './common/errors/all-exceptions.filter';
import { ThrottlingModule } from './common/throttling/throttling.module';
import { AppValidationPipe } from './common/validation/app-validation.pipe';
import { ConfigSectionsModule } from './config/config.module';
import { SecurityConfig } from './config/config.sections';
import { DatabaseModule } from './database/database.module';
import { EmailCodesModule } from './email-codes/email-codes.module';
import { EmailLinksModule } from './email-links/email-links.module';
import { IdentityProvidersModule } from './identity-providers/identity-providers.module';
import { HealthModule } from './health/health.module';
import { JwksModule } from './jwks/jwks.module';
import { LoggingModule } from './logging/logging.module';
import { EventMetricsModule } from './metrics/event-metrics.module';
import { MetricsModule } from './metrics/metrics.module';
import { NoticesModule } from './mail/notices.module';
import { SecondFactorModule } from './second-factor/second-factor.module';
import { PasskeysModule } from './passkeys/passkeys.module';
import { PasswordModule } from './password/password.module';
import { PlatformCheck } from './platform/platform-check';
import { AccountModule } from './account/account.module';
import { OrganizationsModule } from './organizations/organizations.module';
import { WebhooksModule } from './webhooks/webhooks.module';

/**
 * The whole service. Configuration is read and validated while the app is built (ConfigSource:
 * `.env` and the environment), so a bad value fails before anything starts. A team's integration
 * test imports it as it is: `Test.createTestingModule({ imports: [AppModule] })`, overriding
 * providers (ConfigSource, the mail transport, LogOutput) as it needs; see docs/extending.md.
 */
@Module({
  imports: [
    ConfigSectionsModule,
    LoggingModule,
    DatabaseModule,
    ThrottlingModule,
    AuthModule,
    PasswordModule,
    AccountModule,
    EmailLinksModule,
    PasskeysModule,
    EmailCodesModule,
    SecondFactorModule,
    IdentityProvidersModule,
    AccountRemovalModule,
    AdminModule,
    OrganizationsModule,
    WebhooksModule,
    HealthModule,
    MetricsModule,
    JwksModule,
    // The subscribers to the domain events: the trail in the change's transaction, the rest after.
    AuditModule,
    EventMetricsModule,
    NoticesModule,
  ],
  providers: [
    PlatformCheck,
    { provide: APP_FILTER, useClass: AllExceptionsFilter },
    {
      provide: APP_PIPE,
      inject: [SecurityConfig],
      useFactory: (security: SecurityConfig) => new AppValidationPipe(security.passwordMinLength),
    },
  ],
})
export class AppModule {}
