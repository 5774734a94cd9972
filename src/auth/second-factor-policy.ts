import { Injectable } from '@nestjs/common';
import { MfaConfig } from '../config/config.sections';
import { User } from '../users/user.entity';
import { SecondFactorMethods } from './second-factor-methods.service';

/**
 * What the step-up and enrolment guards decide, in one provider AuthModule exports: a module
 * whose routes take `@Authenticated()` gets it with AuthModule, as it gets OriginPolicy.
 */
@Injectable()
export class SecondFactorPolicy {
  private readonly roles: ReadonlySet<string>;
  private readonly stepUpMaxAge: number;

  constructor(
    config: MfaConfig,
    private readonly methods: SecondFactorMethods,
  ) {
    this.roles = new Set(config.requiredRoles);
    this.stepUpMaxAge = config.stepUpMaxAge;
  }

  /** A sign-in at `authTime` (epoch seconds) counts as recent: within STEP_UP_MAX_AGE. */
  isRecent(authTime: number | undefined): boolean {
    return authTime !== undefined && Date.now() / 1000 - authTime <= this.stepUpMaxAge;
  }

  /**
   * MFA_REQUIRED_ROLES names the user's role and they have no second factor yet (an
   * authenticator app or a passkey). Asks the database only for users of those roles (none by
   * default).
   */
  async mustEnrol(user: User): Promise<boolean> {
    if (!this.roles.has(user.role)) return false;
    return (await this.methods.of(user.id)).length === 0;
  }
}
