import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { DomainEvents } from '../events/domain-events.service';
import { AppException } from '../common/errors/app.exception';
import { ClientInfo } from '../common/http/request-context';
import { Database } from '../database/database.service';
import { SsoRequirement } from './sso-requirement';
import { RefreshClaims } from '../sessions/refresh-claims';
import { SessionsService } from '../sessions/sessions.service';
import { AccessTokensService, SessionTokens } from '../tokens/access-tokens.service';
import { User } from '../users/user.entity';
import { UsersService } from '../users/users.service';
import { LogoutScope } from './dto/logout.dto';
import { LoginBackoff } from './login-backoff.service';
import { SecondFactorChallenges } from './second-factor-challenges.service';
import { Answer, ProvenStep, SignInMethodRegistry } from './sign-in-methods.registry';

export interface Session {
  user: User;
  tokens: SessionTokens;
}

/** A password login of a user with a second factor: the second step is pending. */
export interface PendingSecondFactor {
  mfa_required: true;
  /** Single use, five minutes: `POST /auth/mfa/verify` takes it with a code or a passkey. */
  challenge: string;
  /** The second steps the user can take (`passkey`, `totp`, `recovery_code`), as registered. */
  methods: string[];
}

/**
 * The session core: what every way in shares. A first step hands over here (the second step
 * when the user has one, else the session), the second step completes it, and sessions start,
 * refresh and end here. It names no way in: `amr` and the second steps come from what the ways
 * in registered.
 */
@Injectable()
export class AuthService {
  constructor(
    private readonly database: Database,
    private readonly users: UsersService,
    private readonly accessTokens: AccessTokensService,
    private readonly sessions: SessionsService,
    private readonly events: DomainEvents,
    private readonly backoff: LoginBackoff,
    private readonly challenges: SecondFactorChallenges,
    private readonly sso: SsoRequirement,
    private readonly waysIn: SignInMethodRegistry,
  ) {}

  /**
   * 403 SSO_REQUIRED for an address whose domain must sign in through its provider. Said of the
   * domain, whether or not an account exists: the rule is public configuration, so it tells
   * nothing of any account (with ACCOUNT_ENUMERATION_PROTECTION too).
   */
  refuseSsoDomain(email: string): void {
    this.sso.refuse(email);
  }

  /**
   * A login's first step has proven `user` (the password, a code mailed to the account, or an
   * identity provider's sign-in): the second step when they have a second factor (a provider's
   * own second step, if any, is not something this service can see or vouch for), else the
   * session, and the account's slow-down starts afresh (`typed`: the address its failures were
   * counted under). Every first step hands over here alike; its `amr` is the one its way in
   * registered, and the pending second step keeps it.
   */
  async firstStepPassed(
    user: User,
    step: ProvenStep,
    client?: ClientInfo,
    typed = user.email,
  ): Promise<Session | PendingSecondFactor> {
    const amr = this.waysIn.amrOf(step);
    const methods = await this.waysIn.secondStepsOf(user.id);
    // The slow-down is not lifted yet: a first step alone must not reset the count of wrong codes.
    if (methods.length > 0) {
      return {
        mfa_required: true,
        challenge: await this.challenges.issue(user, amr, step.provider),
        methods,
      };
    }
    const session = await this.startSession(user, amr, client, step.provider);
    await this.backoff.succeeded(typed);
    return session;
  }

  /**
   * The second step of a login: the challenge the password step (or an identity provider's
   * sign-in) answered, and a code, a recovery code or a passkey. 401 INVALID_TOKEN for an unknown, used or expired challenge (or
   * one a logout or password reset has voided since); 401 INVALID_MFA_CODE for a wrong code,
   * counted; 401 INVALID_PASSKEY for a passkey refused. The session's `amr` joins the two
   * steps' (SignInMethodRegistry.combine).
   */
  async completeLogin(challenge: string, answer: Answer, client: ClientInfo): Promise<Session> {
    const { user, firstAmr, provider } = await this.pending(challenge);
    const second = await this.waysIn.check(user, answer, 'second_factor', client);
    if (!(await this.challenges.use(challenge))) throw challengeRefused();
    const amr = this.waysIn.combine(firstAmr, second);
    const session = await this.startSession(user, amr, client, provider);
    await this.backoff.succeeded(user.email);
    return session;
  }

  /**
   * The user whose login's second step `challenge` stands for, while it is open: 401
   * INVALID_TOKEN for an unknown, used or expired one, or one a logout, a password reset or a
   * disable has voided since.
   */
  async pendingUser(challenge: string): Promise<User> {
    return (await this.pending(challenge)).user;
  }

  private async pending(
    challenge: string,
  ): Promise<{ user: User; firstAmr: readonly string[]; provider: string | undefined }> {
    const opened = await this.challenges.peek(challenge);
    if (!opened) throw challengeRefused();
    const user = await this.users.findById(opened.userId);
    if (!user || user.tokenVersion !== opened.tokenVersion || user.disabledAt) {
      throw challengeRefused();
    }
    return { user, firstAmr: opened.firstAmr, provider: opened.provider };
  }

  /**
   * A session for `user`, authenticated by `methods` (checked by the caller, which started before
   * this and took a while). Here, with the user row held, the password hash must still be the one
   * the check saw, so a login racing a password reset cannot end up with a session the reset did
   * not revoke; nor does a user disabled meanwhile get one. The user is read under lock, to sign
   * the access token from. `provider`: the identity provider the sign-in went through, if one
   * (`session.created` says it).
   */
  async startSession(
    user: User,
    methods: readonly string[],
    client?: ClientInfo,
    provider?: string,
  ): Promise<Session> {
    const started = await this.database.transaction(async (manager) => {
      if ((await this.users.passwordHashShared(manager, user.id)) !== user.passwordHash) {
        return null;
      }
      const current = await this.users.findIn(manager, user.id);
      if (!current || current.disabledAt) return null;
      const refresh = await this.sessions.start(manager, user.id, methods, client);
      await this.events.publish(manager, {
        type: 'session.created',
        data: {
          user: current,
          session: { id: refresh.family, amr: [...refresh.auth.methods] },
          provider,
        },
        origin: { client },
      });
      return { user: current, refresh };
    });
    if (!started) throw new AppException('LOGIN_FAILED');
    const tokens = this.accessTokens.sessionTokens(started.user, started.refresh);
    if (!(tokens instanceof Promise)) return { user: started.user, tokens };
    // A custom_access_token hook refused the token: the session it was for ends unused.
    const issued = await tokens.catch(async (error: unknown) => {
      await this.database.transaction((manager) =>
        this.sessions.end(manager, started.user.id, started.refresh.family),
      );
      throw error;
    });
    return { user: started.user, tokens: issued };
  }

  async refresh(claims: RefreshClaims, client?: ClientInfo): Promise<Session> {
    const { user, refresh } = await this.sessions.rotate(claims, client);
    return { user, tokens: await this.accessTokens.renewedSessionTokens(user, refresh) };
  }

  /**
   * Signed in by access token (a User, with its session `sessionId`) or, when that has expired,
   * by refresh token (claims, whose family is the session). `all` ends every session and bumps
   * the token version, as the contract's logout; `current` and `others` end sessions by family
   * and leave the token version alone, so the sessions that go on keep their access tokens.
   * Returns how many sessions `others` ended.
   */
  async logout(
    principal: User | RefreshClaims,
    sessionId: string | undefined,
    scope: LogoutScope,
    client?: ClientInfo,
  ): Promise<number> {
    if (!(principal instanceof User) && !(await this.sessions.isLive(principal))) {
      throw new AppException('INVALID_TOKEN');
    }
    const userId = principal instanceof User ? principal.id : principal.sub;
    const session = principal instanceof User ? sessionId : principal.fam;
    if (scope !== 'all' && session === undefined) throw new AppException('INVALID_TOKEN');
    return this.database.transaction(async (manager) => {
      if (scope === 'all') {
        const ended = await this.sessions.endAll(userId, manager);
        await this.revoked(manager, userId, ended, 'logout', client, true);
        return 0;
      }
      if (scope === 'current') {
        // Ended meanwhile (another device ended it): the token no longer stands for a session.
        if (!(await this.sessions.end(manager, userId, session!))) {
          throw new AppException('INVALID_TOKEN');
        }
        await this.revoked(manager, userId, [session!], 'logout', client);
        return 0;
      }
      const ended = await this.sessions.endOthers(manager, userId, session!);
      if (ended.length > 0) await this.revoked(manager, userId, ended, 'ended_elsewhere', client);
      return ended.length;
    });
  }

  private revoked(
    manager: EntityManager,
    userId: string,
    sessions: string[],
    reason: 'logout' | 'ended_elsewhere',
    client: ClientInfo | undefined,
    everySession = false,
  ): Promise<void> {
    return this.events.publish(manager, {
      type: 'session.revoked',
      data: {
        userId,
        sessions: sessions.map((id) => ({ id })),
        reason,
        ...(everySession && { everySession }),
      },
      origin: { client },
    });
  }
}

function challengeRefused(): AppException {
  return new AppException('INVALID_TOKEN', {
    message: 'The sign-in challenge is invalid, expired or already used: sign in again',
  });
}
