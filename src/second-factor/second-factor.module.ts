import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { EventsModule } from '../events/events.module';
import { AuthModule } from '../auth/auth.module';
import { CredentialsModule } from '../auth/credentials.module';
import { SignInMethodsModule } from '../auth/sign-in-methods.module';
import { ConfigSectionsModule } from '../config/config.module';
import { DatabaseModule } from '../database/database.module';
import { MailModule } from '../mail/mail.module';
import { MetricsModule } from '../metrics/metrics.module';
import { AuthenticatorAppWayIn } from './authenticator-app.way-in';
import { SecondFactorSettingsController } from './second-factor-settings.controller';
import { SecondFactorService } from './second-factor.service';
import { RecoveryCode } from './recovery-code.entity';
import { SecondFactorCodes } from './second-factor-codes.service';
import { SecretBox } from '../common/crypto/secret-box';
import { UserSecondFactor } from './user-second-factor.entity';

/**
 * The second factor: an authenticator app (TOTP) and its recovery codes, as a login's second
 * step and a step-up's proof; the account's routes to switch it on and off, and the only module
 * that touches their tables. It registers itself with the core (AuthenticatorAppWayIn); the
 * core's second step (the challenge, `POST /auth/mfa/verify`) hands it the code.
 */
@Module({
  imports: [
    CredentialsModule,
    EventsModule,
    AuthModule,
    ConfigSectionsModule,
    DatabaseModule,
    MailModule,
    MetricsModule,
    SignInMethodsModule,
    TypeOrmModule.forFeature([UserSecondFactor, RecoveryCode]),
  ],
  controllers: [SecondFactorSettingsController],
  providers: [AuthenticatorAppWayIn, SecondFactorService, SecondFactorCodes, SecretBox],
  exports: [SecondFactorService],
})
export class SecondFactorModule {}
