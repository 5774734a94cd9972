import { Injectable } from '@nestjs/common';
import { MfaConfig } from '../config/config.sections';
import { User } from '../users/user.entity';
import { SignInMethodRegistry } from './sign-in-methods.registry';

/**
 * What the step-up and enrolment checks of the global guard decide (SecondFactorGuard), in one
 * provider of AuthModule's own.
 */
@Injectable()
export class SecondFactorPolicy {
  private readonly roles: ReadonlySet<string>;
  private readonly stepUpMaxAge: number;

  constructor(
    config: MfaConfig,
    private readonly waysIn: SignInMethodRegistry,
  ) {
    this.roles = new Set(config.requiredRoles);
    this.stepUpMaxAge = config.stepUpMaxAge;
  }

  /** A sign-in at `authTime` (epoch seconds) counts as recent: within STEP_UP_MAX_AGE. */
  isRecent(authTime: number | undefined): boolean {
    return authTime !== undefined && Date.now() / 1000 - authTime <= this.stepUpMaxAge;
  }

  /** MFA_REQUIRED_ROLES names the user's role (none by default). */
  requiresSecondFactor(user: User): boolean {
    return this.roles.has(user.role);
  }

  /**
   * MFA_REQUIRED_ROLES names the user's role and they have no second factor yet (an
   * authenticator app or a passkey). Asks the database only for users of those roles.
   */
  async mustEnrol(user: User): Promise<boolean> {
    if (!this.requiresSecondFactor(user)) return false;
    return (await this.waysIn.secondStepsOf(user.id)).length === 0;
  }
}

/**
 * The token's session was authenticated with a second factor, as its `amr` (RFC 8176) says:
 * `mfa`; `hwk` or `swk` (a passkey, which signs in or steps up only with user verification, so
 * it is two factors alone); or `otp` beside a first step (`pwd`, `fed`: the authenticator app's
 * code, or a recovery code, after it). `otp` alone is a code mailed to the account (a sign-in or
 * a step-up by email): one factor, the mailbox. No `amr` (a token from before it) shows none.
 */
export function showsSecondFactor(amr: readonly string[] | undefined): boolean {
  if (!amr) return false;
  if (amr.some((method) => method === 'mfa' || method === 'hwk' || method === 'swk')) return true;
  return amr.includes('otp') && amr.some((method) => method === 'pwd' || method === 'fed');
}
