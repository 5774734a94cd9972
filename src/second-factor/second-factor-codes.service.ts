import { Injectable } from '@nestjs/common';
import { DomainEvents } from '../events/domain-events.service';
import { AppException } from '../common/errors/app.exception';
import { ClientInfo } from '../common/http/request-context';
import { Metrics } from '../metrics/metrics.service';
import { LoginBackoff } from '../auth/login-backoff.service';
import { User } from '../users/user.entity';
import { SecondFactorService, invalidCode } from './second-factor.service';

/** What a user typed for their second factor: a code from the app, or a recovery code. */
export type SecondFactorAnswer = { code: string } | { recoveryCode: string };

/**
 * Checks the code that answers a second step (login, step-up, switching the factor off). Wrong
 * codes count towards the account's login slow-down (one count with wrong passwords, on every
 * instance), so six digits cannot be guessed faster than a password; while the account waits,
 * 429 RATE_LIMITED whatever the code.
 */
@Injectable()
export class SecondFactorCodes {
  constructor(
    private readonly mfa: SecondFactorService,
    private readonly backoff: LoginBackoff,
    private readonly events: DomainEvents,
    private readonly metrics: Metrics,
  ) {}

  /** 429 while the account waits; 401 INVALID_MFA_CODE for a wrong or used code. */
  async confirm(user: User, answer: SecondFactorAnswer, client: ClientInfo): Promise<void> {
    await this.refuseWhileWaiting(user);
    const method = 'code' in answer ? 'totp' : 'recovery_code';
    const accepted =
      'code' in answer
        ? await this.mfa.useTotpCode(user.id, answer.code)
        : await this.mfa.useRecoveryCode(user, answer.recoveryCode, client);
    this.metrics.secondFactor(method, accepted ? 'ok' : 'failed');
    if (!accepted) await this.refused(user, client);
  }

  /** Enrolment's first code, from the pending secret; counted as any other code. */
  async confirmEnrolment(user: User, code: string, client: ClientInfo): Promise<string[]> {
    await this.refuseWhileWaiting(user);
    try {
      const recovery = await this.mfa.confirmTotp(user, code, client);
      this.metrics.secondFactor('totp', 'ok');
      return recovery;
    } catch (error) {
      if (!(error instanceof AppException) || error.code !== 'INVALID_MFA_CODE') throw error;
      this.metrics.secondFactor('totp', 'failed');
      return this.refused(user, client);
    }
  }

  private async refuseWhileWaiting(user: User): Promise<void> {
    const wait = await this.backoff.waiting(user.email);
    if (wait > 0) {
      throw new AppException('RATE_LIMITED', {
        message: 'Too many wrong codes or passwords for this account, try again later',
        retryAfter: wait,
      });
    }
  }

  private async refused(user: User, client: ClientInfo): Promise<never> {
    await this.backoff.failed(user.email);
    await this.events.signalAlone({ type: 'mfa.failed', userId: user.id, origin: { client } });
    throw invalidCode();
  }
}
