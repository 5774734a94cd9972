import { Module } from '@nestjs/common';
import { SignInMethodRegistry } from './sign-in-methods.registry';

/**
 * The registry alone, so that a way in's module registers itself without importing AuthModule
 * (which may import it in turn): every importer shares the one instance.
 */
@Module({
  providers: [SignInMethodRegistry],
  exports: [SignInMethodRegistry],
})
export class SignInMethodsModule {}
