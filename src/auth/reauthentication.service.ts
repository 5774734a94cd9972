import { Injectable } from '@nestjs/common';
import { DomainEvents } from '../events/domain-events.service';
import { ClientInfo } from '../common/http/request-context';
import { RefreshClaims } from '../sessions/refresh-claims';
import { SessionsService } from '../sessions/sessions.service';
import { AccessTokensService } from '../tokens/access-tokens.service';
import { User } from '../users/user.entity';
import { Session } from './auth.service';
import { Answer, ProvenStep, SignInMethodRegistry } from './sign-in-methods.registry';

/** The signed-in session being authenticated again. */
export interface SteppingUp {
  /** Its `sid`. */
  id: string;
  /** Its access token's `amr`: a code of the app is a second factor on top of its first step. */
  amr: readonly string[] | undefined;
  /** Its refresh token, when the browser sent the cookie: rotated as a refresh would. */
  presented: RefreshClaims | undefined;
}

/**
 * Step-up: the signed-in session is authenticated again and gets new tokens saying so
 * (`auth_time` now, `amr` the method), same `sid`. Wrong answers count towards the account's
 * login slow-down, as at login.
 */
@Injectable()
export class Reauthentication {
  constructor(
    private readonly sessions: SessionsService,
    private readonly accessTokens: AccessTokensService,
    private readonly events: DomainEvents,
    private readonly waysIn: SignInMethodRegistry,
  ) {}

  /**
   * A proof in the step-up's body, checked by the way in that registered its field. `amr`: the
   * way in's own, as its sign-in says it; for the authenticator app's code, a second step on top
   * of the session's first (SignInMethodRegistry.stepUpAmr).
   */
  async reauthenticate(
    user: User,
    session: SteppingUp,
    proof: Answer,
    client: ClientInfo,
  ): Promise<Session> {
    const step = await this.waysIn.check(user, proof, 'reauthentication', client);
    return this.renew(user.id, session, this.waysIn.stepUpAmr(session.amr, step), client);
  }

  /**
   * A step-up a way in proved through a round trip of its own (a fresh sign-in at an identity
   * provider, with an identity linked to this same user).
   */
  proven(
    userId: string,
    session: SteppingUp,
    step: ProvenStep,
    client: ClientInfo,
  ): Promise<Session> {
    return this.renew(userId, session, this.waysIn.stepUpAmr(session.amr, step), client);
  }

  private async renew(
    userId: string,
    session: SteppingUp,
    methods: readonly string[],
    client: ClientInfo,
  ): Promise<Session> {
    const renewed = await this.sessions.reauthenticate(
      userId,
      session.id,
      methods,
      session.presented,
      client,
    );
    await this.events.signalAlone({
      type: 'session.reauthenticated',
      userId,
      sessionId: session.id,
      origin: { client },
    });
    return {
      user: renewed.user,
      tokens: await this.accessTokens.renewedSessionTokens(renewed.user, renewed.refresh),
    };
  }
}
