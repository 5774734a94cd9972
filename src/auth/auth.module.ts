import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { PassportModule } from '@nestjs/passport';
import { TypeOrmModule } from '@nestjs/typeorm';
import { EventsModule } from '../events/events.module';
import { ConfigSectionsModule } from '../config/config.module';
import { DatabaseModule } from '../database/database.module';
import { IdentitiesModule } from '../identities/identities.module';
import { MailModule } from '../mail/mail.module';
import { MetricsModule } from '../metrics/metrics.module';
import { RedisModule } from '../redis/redis.module';
import { SessionsModule } from '../sessions/sessions.module';
import { TokensModule } from '../tokens/tokens.module';
import { UsersModule } from '../users/users.module';
import { ApplicationUrlPolicy } from './application-url.policy';
import { AuthCookies } from './auth-cookies.service';
import { AuthController } from './auth.controller';
import { AuthService } from './auth.service';
import { CurrentPassword } from './current-password.service';
import { LoginBackoff } from './login-backoff.service';
import { MailboxProof } from './mailbox-proof.service';
import { MfaChallenge } from './mfa-challenge.entity';
import { MfaChallenges } from './mfa-challenges.service';
import { SecondFactorController } from './second-factor.controller';
import { SecondFactorPolicy } from './second-factor-policy';
import { ChangeConfirmation } from './change-confirmation.service';
import { PresentedRefresh } from './presented-refresh.service';
import { ReauthenticationController } from './reauthentication.controller';
import { ReauthenticationMethods } from './reauthentication-methods.service';
import { Reauthentication } from './reauthentication.service';
import { SignInMethodsController } from './sign-in-methods.controller';
import { SessionController } from './session.controller';
import { SessionDelivery } from './session-delivery.service';
import { OriginPolicy } from '../common/http/origin.policy';
import { PasswordHasher } from './hashing/password-hasher.service';
import { AuthenticationGuard } from './guards/authentication.guard';
import { OptionalAccessGuard } from './guards/optional-access.guard';
import { RolesGuard } from './guards/roles.guard';
import { SecondFactorGuard } from './guards/second-factor.guard';
import { AccessTokenGuard, LogoutGuard, RefreshTokenGuard } from './guards/token.guard';
import { AccessTokenStrategy } from './strategies/access-token.strategy';
import { RefreshTokenStrategy } from './strategies/refresh-token.strategy';
import { SignInMethodsModule } from './sign-in-methods.module';
import { SsoRequirement } from './sso-requirement';

@Module({
  imports: [
    EventsModule,
    PassportModule,
    ConfigSectionsModule,
    DatabaseModule,
    IdentitiesModule,
    UsersModule,
    SessionsModule,
    TokensModule,
    MailModule,
    MetricsModule,
    RedisModule,
    SignInMethodsModule,
    TypeOrmModule.forFeature([MfaChallenge]),
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
    MfaChallenges,
    Reauthentication,
    ReauthenticationMethods,
    ChangeConfirmation,
    PresentedRefresh,
    SecondFactorPolicy,
    CurrentPassword,
    SessionDelivery,
    LoginBackoff,
    MailboxProof,
    AuthCookies,
    ApplicationUrlPolicy,
    PasswordHasher,
    SsoRequirement,
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
  // signed-in routes needs only the decorators. Ways in start sessions through AuthService and
  // deliver them (SessionDelivery, AuthCookies), count wrong answers as login does
  // (LoginBackoff), and register with SignInMethodRegistry (SignInMethodsModule, imported
  // directly). The password and the account confirm passwords and changes only the owner may
  // make; mailed links check where they lead and prove a mailbox; a provider steps a session up.
  exports: [
    ApplicationUrlPolicy,
    AuthCookies,
    AuthService,
    ChangeConfirmation,
    LoginBackoff,
    CurrentPassword,
    PasswordHasher,
    PresentedRefresh,
    Reauthentication,
    ReauthenticationMethods,
    SessionDelivery,
    MailboxProof,
    SsoRequirement,
  ],
})
export class AuthModule {}
