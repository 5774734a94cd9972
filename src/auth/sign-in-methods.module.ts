import { Module } from '@nestjs/common';
import { ReauthenticationMethods } from './reauthentication-methods.service';
import { SignInMethodRegistry } from './sign-in-methods.registry';

/**
 * The registry alone (and what is read from it), so that a way in's module registers itself
 * without importing AuthModule (which may import it in turn): every importer shares the one
 * instance.
 */
@Module({
  providers: [SignInMethodRegistry, ReauthenticationMethods],
  exports: [SignInMethodRegistry, ReauthenticationMethods],
})
export class SignInMethodsModule {}
