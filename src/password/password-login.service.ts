import { Injectable } from '@nestjs/common';
import { DomainEvents } from '../events/domain-events.service';
import { AppException } from '../common/errors/app.exception';
import { ClientInfo } from '../common/http/request-context';
import { SsoRequirement } from '../auth/sso-requirement';
import { UsersService } from '../users/users.service';
import { AuthService, PendingSecondFactor, Session } from '../auth/auth.service';
import { LoginDto } from './dto/login.dto';
import { PasswordHasher } from '../auth/hashing/password-hasher.service';
import { LoginBackoff } from '../auth/login-backoff.service';
import { PASSWORD } from './password.way-in';

/** The password's first step (`POST /auth/login`), handed to the core as every first step is. */
@Injectable()
export class PasswordLogin {
  constructor(
    private readonly auth: AuthService,
    private readonly users: UsersService,
    private readonly hasher: PasswordHasher,
    private readonly backoff: LoginBackoff,
    private readonly events: DomainEvents,
    private readonly sso: SsoRequirement,
  ) {}

  /**
   * An account slowed down by failed logins is refused before its password is looked at: no
   * hashing work for the attacker to spend, and no answer that depends on the password.
   */
  async login(input: LoginDto, client?: ClientInfo): Promise<Session | PendingSecondFactor> {
    this.sso.refuse(input.email);
    const wait = await this.backoff.waiting(input.email);
    if (wait > 0) {
      throw new AppException('RATE_LIMITED', {
        message: 'Too many failed logins for this account, try again later',
        retryAfter: wait,
      });
    }
    const user = await this.users.findByEmail(input.email);
    const valid = await this.hasher.verify(input.password, user?.passwordHash);
    if (!user || !valid) {
      await this.backoff.failed(input.email);
      await this.events.signalAlone({
        type: 'login.failed',
        userId: user?.id ?? null,
        origin: { client },
      });
      throw new AppException('LOGIN_FAILED');
    }
    // Said only to whoever knows the password: a guesser learns nothing from a disabled account.
    if (user.disabledAt) {
      await this.events.signalAlone({ type: 'login.failed', userId: user.id, origin: { client } });
      throw new AppException('ACCOUNT_DISABLED');
    }
    return this.auth.firstStepPassed(user, { method: PASSWORD }, client, input.email);
  }
}
