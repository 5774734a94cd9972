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

/**
 * The second factor: TOTP secrets, recovery codes and login challenges, and the only module that
 * touches their tables. No routes of its own: login (AuthModule), the account page
 * (AccountModule) and administration (AdminModule) use its services on their own routes.
 */
@Module({
  imports: [
    AuditModule,
    ConfigSectionsModule,
    DatabaseModule,
    MailModule,
    TypeOrmModule.forFeature([UserMfa, RecoveryCode, MfaChallenge]),
  ],
  providers: [MfaService, MfaChallenges, SecretBox],
  exports: [MfaService, MfaChallenges],
})
export class MfaModule {}
