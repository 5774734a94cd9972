import { Injectable } from '@nestjs/common';
import { DomainEvents } from '../events/domain-events.service';
import { AuthService, PendingSecondFactor, Session } from '../auth/auth.service';
import { LoginBackoff } from '../auth/login-backoff.service';
import { AppException } from '../common/errors/app.exception';
import { ClientInfo } from '../common/http/request-context';
import { EmailCodeProof, Metrics } from '../metrics/metrics.service';
import { User } from '../users/user.entity';
import { UsersService } from '../users/users.service';
import { EmailCodeFirstProof } from './email-code-first-proof.service';
import { EMAIL_CODE } from './email-code.way-in';
import { EmailCodes } from './email-codes.service';

/** Matches no row of email_codes: user ids are `user_` and digits. */
const NO_USER_ID = 'none';

/** What comes back from the mail: the six digits with the address, or the link's token. */
export type EmailCodeProofOf = { email: string; code: string } | { token: string };

/**
 * Signing in with a one-time code by email (mailed by EmailCodeMails): the first step of a login,
 * as the password is. A code (or its link) proves the mailbox, so an unverified address becomes
 * verified (and what was set before that proof is undone: EmailCodeFirstProof); a disabled
 * account is refused as login refuses it (403, said only to whoever holds the code); an account
 * with a second factor goes on to its second step. Wrong codes count towards the account's
 * login slow-down, with wrong passwords, and kill their code after EMAIL_CODE_ATTEMPTS.
 */
@Injectable()
export class EmailCodeSignIn {
  constructor(
    private readonly auth: AuthService,
    private readonly codes: EmailCodes,
    private readonly users: UsersService,
    private readonly backoff: LoginBackoff,
    private readonly events: DomainEvents,
    private readonly metrics: Metrics,
    private readonly firstProof: EmailCodeFirstProof,
  ) {}

  /**
   * The code (with the address it was mailed to) or the link's token: login's answer, or its
   * second step. 401 LOGIN_FAILED for a wrong, used, expired or dead one; 429 while the account
   * waits (a typed code only: a link cannot be guessed, so it is no guess to slow down).
   */
  async verify(
    proof: EmailCodeProofOf,
    client: ClientInfo,
  ): Promise<Session | PendingSecondFactor> {
    const kind: EmailCodeProof = 'token' in proof ? 'link' : 'code';
    if ('email' in proof) this.auth.refuseSsoDomain(proof.email);
    const user =
      'token' in proof ? await this.byLink(proof.token) : await this.byCode(proof, client);
    if (!user) {
      this.metrics.emailCode(kind, 'failed');
      if ('token' in proof) {
        await this.events.signalAlone({
          type: 'email_code.failed',
          userId: null,
          origin: { client },
        });
      }
      throw new AppException('LOGIN_FAILED', {
        message: 'The code is wrong, expired or already used',
      });
    }
    this.metrics.emailCode(kind, 'ok');
    // A link names no address: the account's own decides (its domain may have become SSO-only
    // after the code was mailed).
    this.auth.refuseSsoDomain(user.email);
    if (user.disabledAt) {
      await this.events.signalAlone({ type: 'login.failed', userId: user.id, origin: { client } });
      throw new AppException('ACCOUNT_DISABLED');
    }
    const proven = user.emailVerified ? user : await this.firstProof.markVerified(user, client);
    return this.auth.firstStepPassed(
      proven,
      { method: EMAIL_CODE },
      client,
      'email' in proof ? proof.email : undefined,
    );
  }

  private async byLink(token: string): Promise<User | null> {
    const userId = await this.codes.useLink(token);
    return userId === null ? null : this.users.findById(userId);
  }

  /** Counted as a wrong password is, whether or not an account (or a live code) is there. */
  private async byCode(
    proof: { email: string; code: string },
    client: ClientInfo,
  ): Promise<User | null> {
    const wait = await this.backoff.waiting(proof.email);
    if (wait > 0) {
      throw new AppException('RATE_LIMITED', {
        message: 'Too many failed sign-ins for this account, try again later',
        retryAfter: wait,
      });
    }
    const user = await this.users.findByEmail(proof.email);
    // An unknown address goes through the same locked lookup, under an id no user has (user ids
    // start `user_`): skipping it would answer measurably sooner, telling a guesser which
    // addresses have accounts even with ACCOUNT_ENUMERATION_PROTECTION. Never an absent id:
    // TypeORM drops an undefined condition and would match any user's code.
    const outcome = await this.codes.useCode(user?.id ?? NO_USER_ID, proof.code);
    if (user && outcome === 'used') return user;
    await this.backoff.failed(proof.email);
    await this.events.signalAlone({
      type: 'email_code.failed',
      userId: user?.id ?? null,
      origin: { client },
    });
    return null;
  }
}
