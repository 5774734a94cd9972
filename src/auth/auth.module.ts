import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { PassportModule } from '@nestjs/passport';
import { AuditModule } from '../audit/audit.module';
import { ConfigSectionsModule } from '../config/config.module';
import { DatabaseModule } from '../database/database.module';
import { EmailCodesModule } from '../email-codes/email-codes.module';
import { IdentitiesModule } from '../identities/identities.module';
import { MailModule } from '../mail/mail.module';
import { MetricsModule } from '../metrics/metrics.module';
import { MfaModule } from '../mfa/mfa.module';
import { PasskeysModule } from '../passkeys/passkeys.module';
import { RedisModule } from '../redis/redis.module';
import { SessionsModule } from '../sessions/sessions.module';
import { TokensModule } from '../tokens/tokens.module';
import { UsersModule } from '../users/users.module';
import { AfterAnswer } from './after-answer.service';
import { ApplicationUrlPolicy } from './application-url.policy';
import { AuthCookies } from './auth-cookies.service';
import { AuthController } from './auth.controller';
import { AuthService } from './auth.service';
import { CurrentPassword } from './current-password.service';
import { EmailCodeSignInController } from './email-code-sign-in.controller';
import { EmailCodeSignIn } from './email-code-sign-in.service';
import { EmailFlowsController } from './email-flows.controller';
import { EmailFlowsService } from './email-flows.service';
import { LoginBackoff } from './login-backoff.service';
import { MailboxProof } from './mailbox-proof.service';
import { LinkPagesController } from './link-pages.controller';
import { PasswordChangedNotice } from './password-changed-notice.service';
import { ResetPasswordBodyPipe } from './reset-password-body.pipe';
import { SecondFactorController } from './second-factor.controller';
import { SecondFactorCodes } from './second-factor-codes.service';
import { SecondFactorMethods } from './second-factor-methods.service';
import { SecondFactorPolicy } from './second-factor-policy';
import { PasskeySignInController } from './passkey-sign-in.controller';
import { PasskeySignIn } from './passkey-sign-in.service';
import { ChangeConfirmation } from './change-confirmation.service';
import { PresentedRefresh } from './presented-refresh.service';
import { ReauthenticationCodes } from './reauthentication-codes.service';
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

@Module({
  imports: [
    AuditModule,
    PassportModule,
    ConfigSectionsModule,
    DatabaseModule,
    EmailCodesModule,
    IdentitiesModule,
    UsersModule,
    SessionsModule,
    TokensModule,
    MailModule,
    MetricsModule,
    MfaModule,
    PasskeysModule,
    RedisModule,
  ],
  controllers: [
    AuthController,
    SecondFactorController,
    ReauthenticationController,
    PasskeySignInController,
    EmailCodeSignInController,
    SessionController,
    EmailFlowsController,
    LinkPagesController,
    SignInMethodsController,
  ],
  providers: [
    AfterAnswer,
    AuthService,
    Reauthentication,
    ReauthenticationCodes,
    ReauthenticationMethods,
    ChangeConfirmation,
    PresentedRefresh,
    SecondFactorCodes,
    SecondFactorMethods,
    SecondFactorPolicy,
    PasskeySignIn,
    EmailCodeSignIn,
    CurrentPassword,
    SessionDelivery,
    LoginBackoff,
    EmailFlowsService,
    MailboxProof,
    PasswordChangedNotice,
    ResetPasswordBodyPipe,
    AuthCookies,
    ApplicationUrlPolicy,
    PasswordHasher,
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
  // signed-in routes needs only the decorators. Account management confirms passwords (counting
  // wrong ones as login does), checks emailed-link URLs, sends the password-changed notice,
  // delivers and clears the cookies of the sessions it renews or ends, and confirms changes only
  // the owner may make; identity providers start sessions through AuthService and step them up
  // through Reauthentication; administrators send the reset mail.
  exports: [
    AfterAnswer,
    ApplicationUrlPolicy,
    AuthCookies,
    AuthService,
    ChangeConfirmation,
    CurrentPassword,
    EmailFlowsService,
    PasswordChangedNotice,
    PasswordHasher,
    PresentedRefresh,
    Reauthentication,
    ReauthenticationMethods,
    SecondFactorCodes,
    SessionDelivery,
  ],
})
export class AuthModule {}
