import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditModule } from '../audit/audit.module';
import { ConfigSectionsModule } from '../config/config.module';
import { DatabaseModule } from '../database/database.module';
import { IdentitiesModule } from '../identities/identities.module';
import { SignInMethodsModule } from '../auth/sign-in-methods.module';
import { MetricsModule } from '../metrics/metrics.module';
import { PasskeyAssertions } from './passkey-assertions.service';
import { Passkey } from './passkey.entity';
import { PasskeysService } from './passkeys.service';
import { RelyingParty } from './relying-party';
import { WebAuthnChallenge } from './webauthn-challenge.entity';
import { WebAuthnChallenges } from './webauthn-challenges.service';
import { PasskeyWayIn } from './passkey.way-in';

/**
 * Passkeys (WebAuthn): users' credentials and the challenges of ceremonies in progress, and the
 * only module that touches their tables; registered with the core as a way in. Its routes are
 * PasskeyRoutesModule's.
 */
@Module({
  imports: [
    AuditModule,
    ConfigSectionsModule,
    DatabaseModule,
    IdentitiesModule,
    MetricsModule,
    SignInMethodsModule,
    TypeOrmModule.forFeature([Passkey, WebAuthnChallenge]),
  ],
  providers: [PasskeysService, PasskeyAssertions, PasskeyWayIn, WebAuthnChallenges, RelyingParty],
  exports: [PasskeysService, PasskeyAssertions],
})
export class PasskeysModule {}
