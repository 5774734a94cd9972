import { Injectable } from '@nestjs/common';
import { AppException } from '../common/errors/app.exception';
import { User, hasPassword } from '../users/user.entity';
import { CurrentPassword } from './current-password.service';
import { SecondFactorPolicy } from './second-factor-policy';

/**
 * What confirms a change only the account's owner may make (a new email address, the account's
 * deletion, switching the second factor off): the current password, exactly as ever, for an
 * account that has one. An account without a password (made by an identity provider, or whose
 * password a mailed code's first proof of the mailbox removed) never had one to type: a recent
 * sign-in (within STEP_UP_MAX_AGE, renewed by `POST /auth/reauthenticate` with any proof it has)
 * confirms it instead.
 */
@Injectable()
export class ChangeConfirmation {
  constructor(
    private readonly currentPassword: CurrentPassword,
    private readonly policy: SecondFactorPolicy,
  ) {}

  /**
   * `user` as stored now. With a password: 400 VALIDATION_ERROR when none was sent, else as
   * CurrentPassword (403 INVALID_PASSWORD, 429 while the account waits). Without one: 400
   * VALIDATION_ERROR when one was sent (there is none to compare it with), 403
   * REAUTHENTICATION_REQUIRED when the token's `auth_time` is older than STEP_UP_MAX_AGE.
   */
  async confirm(
    user: User,
    password: string | undefined,
    authTime: number | undefined,
  ): Promise<void> {
    if (hasPassword(user)) {
      if (password === undefined) throw invalid('password is required: it confirms the change');
      return this.currentPassword.confirm(user, password);
    }
    if (password !== undefined) {
      throw invalid(
        'this account has no password: leave password out, a recent sign-in confirms the change',
      );
    }
    if (!this.policy.isRecent(authTime)) {
      throw new AppException('REAUTHENTICATION_REQUIRED', {
        message:
          'Confirm it is you: this account has no password, so a recent sign-in confirms the ' +
          'change (POST /auth/reauthenticate)',
      });
    }
  }
}

function invalid(message: string): AppException {
  return new AppException('VALIDATION_ERROR', { details: [{ field: 'password', message }] });
}
