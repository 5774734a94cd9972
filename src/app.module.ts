import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_PIPE } from '@nestjs/core';
import { AuthModule } from './auth/auth.module';
import { AllExceptionsFilter } from './common/errors/all-exceptions.filter';
import { ThrottlingModule } from './common/throttling/throttling.module';
import { AppValidationPipe } from './common/validation/app-validation.pipe';
import { ConfigOptions, ConfigSectionsModule, configRoot } from './config/config.module';
import { SecurityConfig } from './config/config.sections';
import { DatabaseModule } from './database/database.module';
import { HealthModule } from './health/health.module';
import { JwksModule } from './jwks/jwks.module';
import { LoggingModule, LogsOption } from './logging/logging.module';
import { MetricsModule } from './metrics/metrics.module';
import { ProfileModule } from './profile/profile.module';

@Module({})
export class AppModule {
  /**
   * The whole service. Configuration is validated while this module is built, so an embedding
   * app or a test can pass its own values (`env`) and a bad one fails before anything starts.
   */
  static async forRoot(
    options: ConfigOptions & { logs?: LogsOption } = {},
  ): Promise<DynamicModule> {
    return {
      module: AppModule,
      imports: [
        await configRoot(options),
        ConfigSectionsModule,
        ...(options.logs === false ? [] : [LoggingModule.forRoot(options.logs)]),
        DatabaseModule,
        ThrottlingModule,
        AuthModule,
        ProfileModule,
        HealthModule,
        MetricsModule,
        JwksModule,
      ],
      providers: [
        { provide: APP_FILTER, useClass: AllExceptionsFilter },
        {
          provide: APP_PIPE,
          inject: [SecurityConfig],
          useFactory: (security: SecurityConfig) =>
            new AppValidationPipe(security.passwordMinLength),
        },
      ],
    };
  }
}
