import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditModule } from '../audit/audit.module';
import { ConfigSectionsModule } from '../config/config.module';
import { DatabaseModule } from '../database/database.module';
import { MailModule } from '../mail/mail.module';
import { MfaChallenge } from './mfa-challenge.entity';
import { MfaChallenges } from './mfa-challenges.service';
import { MfaService } from './mfa.service';
import { RecoveryCode } from './recovery-code.entity';
import { SecretBox } from './secret-box';
import { UserMfa } from './user-mfa.entity';
import { SignInMethodsModule } from '../auth/sign-in-methods.module';
import { AuthenticatorAppWayIn } from './authenticator-app.way-in';

/**
 * The second factor: TOTP secrets, recovery codes and login challenges, and the only module that
 * touches their tables. No routes of its own: login (AuthModule), the account page
 * (AccountModule) and administration (AdminModule) use its services under their own guards.
 */
@Module({
  imports: [
    AuditModule,
    ConfigSectionsModule,
    DatabaseModule,
    MailModule,
    SignInMethodsModule,
    TypeOrmModule.forFeature([UserMfa, RecoveryCode, MfaChallenge]),
  ],
  providers: [AuthenticatorAppWayIn, MfaService, MfaChallenges, SecretBox],
  exports: [MfaService, MfaChallenges],
})
export class MfaModule {}
