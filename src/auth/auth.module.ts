import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { PassportModule } from '@nestjs/passport';
import { TypeOrmModule } from '@nestjs/typeorm';
import { EventsModule } from '../events/events.module';
import { ConfigSectionsModule } from '../config/config.module';
import { DatabaseModule } from '../database/database.module';
import { MailModule } from '../mail/mail.module';
import { MetricsModule } from '../metrics/metrics.module';
import { RedisModule } from '../redis/redis.module';
import { SessionsModule } from '../sessions/sessions.module';
import { TokensModule } from '../tokens/tokens.module';
import { UsersModule } from '../users/users.module';
import { AuthCookies } from './auth-cookies.service';
import { AuthController } from './auth.controller';
import { AuthService } from './auth.service';
import { MailboxProof } from './mailbox-proof.service';
import { SecondFactorChallenge } from './second-factor-challenge.entity';
import { SecondFactorChallenges } from './second-factor-challenges.service';
import { SecondFactorController } from './second-factor.controller';
import { SecondFactorPolicy } from './second-factor-policy';
import { ChangeConfirmation } from './change-confirmation.service';
import { PresentedRefresh } from './presented-refresh.service';
import { ReauthenticationController } from './reauthentication.controller';
import { Reauthentication } from './reauthentication.service';
import { SignInMethodsController } from './sign-in-methods.controller';
import { SessionController } from './session.controller';
import { SessionDelivery } from './session-delivery.service';
import { OriginPolicy } from '../common/http/origin.policy';
import { AuthenticationGuard } from './guards/authentication.guard';
import { OptionalAccessGuard } from './guards/optional-access.guard';
import { RolesGuard } from './guards/roles.guard';
import { SecondFactorGuard } from './guards/second-factor.guard';
import { AccessTokenGuard, LogoutGuard, RefreshTokenGuard } from './guards/token.guard';
import { AccessTokenStrategy } from './strategies/access-token.strategy';
import { RefreshTokenStrategy } from './strategies/refresh-token.strategy';
import { SignInMethodsModule } from './sign-in-methods.module';
import { CredentialsModule } from './credentials.module';
import { SignInPoliciesModule } from './sign-in-policies.module';

@Module({
  imports: [
    EventsModule,
    PassportModule,
    ConfigSectionsModule,
    DatabaseModule,
    UsersModule,
    SessionsModule,
    TokensModule,
    MailModule,
    MetricsModule,
    RedisModule,
    SignInMethodsModule,
    CredentialsModule,
    SignInPoliciesModule,
    TypeOrmModule.forFeature([SecondFactorChallenge]),
  ],
  controllers: [
    AuthController,
    SecondFactorController,
    ReauthenticationController,
    SessionController,
    SignInMethodsController,
  ],
  providers: [
    AuthService,
    SecondFactorChallenges,
    Reauthentication,
    ChangeConfirmation,
    PresentedRefresh,
    SecondFactorPolicy,
    SessionDelivery,
    MailboxProof,
    AuthCookies,
    AccessTokenStrategy,
    RefreshTokenStrategy,
    OriginPolicy,
    AccessTokenGuard,
    RefreshTokenGuard,
    LogoutGuard,
    OptionalAccessGuard,
    RolesGuard,
    SecondFactorGuard,
    // Every route of every module, after the rate limit (ThrottlingModule comes first in
    // AppModule): signed-in users only, unless the route says `@Public()`.
    { provide: APP_GUARD, useClass: AuthenticationGuard },
  ],
  // What other modules inject, and nothing else: the guard is global, so a module with
  // signed-in routes needs only the decorators. Ways in start sessions (AuthService) and deliver
  // them (SessionDelivery, AuthCookies); the account confirms changes only the owner may make;
  // mailed links prove a mailbox; a provider steps a session up from the refresh cookie it was
  // sent. How secrets are checked (CredentialsModule), the operator's rules
  // (SignInPoliciesModule) and the registry of ways in (SignInMethodsModule) are modules of their
  // own, imported directly.
  exports: [
    AuthService,
    SessionDelivery,
    AuthCookies,
    ChangeConfirmation,
    Reauthentication,
    MailboxProof,
    PresentedRefresh,
  ],
})
export class AuthModule {}
