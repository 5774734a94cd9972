import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { SignInMethodsModule } from '../auth/sign-in-methods.module';
import { UsersModule } from '../users/users.module';
import { PasskeySignInController } from './passkey-sign-in.controller';
import { PasskeySignIn } from './passkey-sign-in.service';
import { PasskeysController } from './passkeys.controller';
import { PasskeysModule } from './passkeys.module';

/**
 * The passkey's routes: signing in with one, a login's second step by one, and the account's
 * own passkeys. Apart from PasskeysModule because the core still imports that one for the
 * second step's and the step-up's check; sessions start through the core's AuthService.
 */
@Module({
  imports: [AuthModule, PasskeysModule, SignInMethodsModule, UsersModule],
  controllers: [PasskeySignInController, PasskeysController],
  providers: [PasskeySignIn],
})
export class PasskeyRoutesModule {}
