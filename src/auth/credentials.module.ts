import { Module } from '@nestjs/common';
import { ConfigSectionsModule } from '../config/config.module';
import { RedisModule } from '../redis/redis.module';
import { CurrentPassword } from './current-password.service';
import { PasswordHasher } from './hashing/password-hasher.service';
import { LoginBackoff } from './login-backoff.service';

/**
 * How a secret is checked, for every way in that takes one: the password's hash (off the event
 * loop), and the backoff that counts wrong answers per account and client, whatever was wrong.
 */
@Module({
  imports: [ConfigSectionsModule, RedisModule],
  providers: [PasswordHasher, LoginBackoff, CurrentPassword],
  exports: [PasswordHasher, LoginBackoff, CurrentPassword],
})
export class CredentialsModule {}
