import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { EventsModule } from '../events/events.module';
import { AuthModule } from '../auth/auth.module';
import { SignInPoliciesModule } from '../auth/sign-in-policies.module';
import { SignInMethodsModule } from '../auth/sign-in-methods.module';
import { ConfigSectionsModule } from '../config/config.module';
import { DatabaseModule } from '../database/database.module';
import { MetricsModule } from '../metrics/metrics.module';
import { UsersModule } from '../users/users.module';
import { PasskeyAssertions } from './passkey-assertions.service';
import { PasskeyReauthenticationController } from './passkey-reauthentication.controller';
import { PasskeySignInController } from './passkey-sign-in.controller';
import { PasskeySignIn } from './passkey-sign-in.service';
import { PasskeyWayIn } from './passkey.way-in';
import { Passkey } from './passkey.entity';
import { PasskeysController } from './passkeys.controller';
import { PasskeysService } from './passkeys.service';
import { RelyingParty } from './relying-party';
import { WebAuthnChallenge } from './webauthn-challenge.entity';
import { WebAuthnChallenges } from './webauthn-challenges.service';

/**
 * Passkeys (WebAuthn) as a way in: signing in with one, a login's second step and a step-up by
 * one, the account's own passkeys; users' credentials and the challenges of ceremonies in
 * progress, and the only module that touches their tables. It registers itself with the core
 * (PasskeyWayIn) and starts sessions through the core's AuthService; the core imports nothing
 * of it.
 */
@Module({
  imports: [
    SignInPoliciesModule,
    EventsModule,
    AuthModule,
    ConfigSectionsModule,
    DatabaseModule,
    MetricsModule,
    SignInMethodsModule,
    UsersModule,
    TypeOrmModule.forFeature([Passkey, WebAuthnChallenge]),
  ],
  controllers: [PasskeySignInController, PasskeyReauthenticationController, PasskeysController],
  providers: [
    PasskeysService,
    PasskeyAssertions,
    PasskeySignIn,
    PasskeyWayIn,
    WebAuthnChallenges,
    RelyingParty,
  ],
  exports: [PasskeysService],
})
export class PasskeysModule {}
