import { Injectable } from '@nestjs/common';
import { PasswordHasher } from './hashing/password-hasher.service';
import { LoginBackoff } from './login-backoff.service';
import { AppException } from '../common/errors/app.exception';
import { User } from '../users/user.entity';

/**
 * Checks the current password that confirms an account change. Wrong guesses count towards the
 * account's login slow-down (one count with login's, on every instance), so a stolen access
 * token cannot be used to guess the password faster than a login form could.
 */
@Injectable()
export class CurrentPassword {
  constructor(
    private readonly hasher: PasswordHasher,
    private readonly backoff: LoginBackoff,
  ) {}

  /** 429 RATE_LIMITED while the account waits; 403 INVALID_PASSWORD for a wrong password. */
  async confirm(user: User, password: string): Promise<void> {
    const wait = await this.backoff.waiting(user.email);
    if (wait > 0) {
      throw new AppException('RATE_LIMITED', {
        message: 'Too many wrong passwords for this account, try again later',
        retryAfter: wait,
      });
    }
    if (!(await this.hasher.verify(password, user.passwordHash))) {
      await this.backoff.failed(user.email);
      throw new AppException('INVALID_PASSWORD');
    }
    await this.backoff.succeeded(user.email);
  }
}
