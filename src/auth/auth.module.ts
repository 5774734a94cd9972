import { Module } from '@nestjs/common';
import { PassportModule } from '@nestjs/passport';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditModule } from '../audit/audit.module';
import { ConfigSectionsModule } from '../config/config.module';
import { DatabaseModule } from '../database/database.module';
import { IdentitiesModule } from '../identities/identities.module';
import { MailModule } from '../mail/mail.module';
import { MetricsModule } from '../metrics/metrics.module';
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
import { EmailFlowsController } from './email-flows.controller';
import { EmailFlowsService } from './email-flows.service';
import { LoginBackoff } from './login-backoff.service';
import { MailboxProof } from './mailbox-proof.service';
import { MfaChallenge } from './mfa-challenge.entity';
import { MfaChallenges } from './mfa-challenges.service';
import { LinkPagesController } from './link-pages.controller';
import { PasswordChangedNotice } from './password-changed-notice.service';
import { ResetPasswordBodyPipe } from './reset-password-body.pipe';
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
import { AccessTokenStrategy } from './strategies/access-token.strategy';
import { RefreshTokenStrategy } from './strategies/refresh-token.strategy';
import { PasswordLogin } from './password-login.service';
import { PasswordWayIn } from './password.way-in';
import { RegistrationMails } from './registration-mails.service';
import { RegistrationService } from './registration.service';
import { SignInMethodsModule } from './sign-in-methods.module';
import { SsoRequirement } from './sso-requirement';

@Module({
  imports: [
    AuditModule,
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
    EmailFlowsController,
    LinkPagesController,
    SignInMethodsController,
  ],
  providers: [
    AfterAnswer,
    AuthService,
    MfaChallenges,
    PasswordLogin,
    RegistrationMails,
    RegistrationService,
    Reauthentication,
    ReauthenticationMethods,
    ChangeConfirmation,
    PresentedRefresh,
    SecondFactorPolicy,
    PasswordWayIn,
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
    SsoRequirement,
    AccessTokenStrategy,
    RefreshTokenStrategy,
    OriginPolicy,
  ],
  // What the guards of `@Authenticated()` need: a module with such routes imports AuthModule.
  // Account management also confirms passwords (counting wrong ones as login does), checks
  // emailed-link URLs, sends the reset mail and the password-changed notice, and clears the
  // cookies of a session it ends.
  // Other ways in (passkeys, identity providers) start their sessions through AuthService, as
  // login does, and register with SignInMethodRegistry; a provider steps a session up through
  // Reauthentication. A change only the owner may make is
  // confirmed by ChangeConfirmation; a profile lists the proofs (ReauthenticationMethods).
  exports: [
    ChangeConfirmation,
    PresentedRefresh,
    Reauthentication,
    ReauthenticationMethods,
    AfterAnswer,
    AuthService,
    OriginPolicy,
    AuthCookies,
    CurrentPassword,
    SessionDelivery,
    PasswordHasher,
    LoginBackoff,
    ApplicationUrlPolicy,
    EmailFlowsService,
    MailboxProof,
    PasswordChangedNotice,
    SecondFactorPolicy,
    SignInMethodsModule,
    SsoRequirement,
  ],
})
export class AuthModule {}
