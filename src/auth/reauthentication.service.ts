import { Injectable } from '@nestjs/common';
import { AuditTrail } from '../audit/audit-trail.service';
import { ClientInfo } from '../common/http/request-context';
import { Database } from '../database/database.service';
import { IDENTITY_PROVIDER } from '../identities/identity-provider.way-in';
import { RefreshClaims } from '../sessions/refresh-claims';
import { SessionsService } from '../sessions/sessions.service';
import { AccessTokensService } from '../tokens/access-tokens.service';
import { User } from '../users/user.entity';
import { Session } from './auth.service';
import { CurrentPassword } from './current-password.service';
import { PASSWORD } from './password.way-in';
import { SecondFactorCodes } from './second-factor-codes.service';
import { RegisteredAnswer, SignInMethodRegistry } from './sign-in-methods.registry';

/**
 * What proves the signed-in person is the account's owner, once more: the password, a code of
 * the authenticator app, or the answer of a way in registered (a passkey's to `POST
 * /auth/reauthenticate/passkey/options`, a code mailed by `POST /auth/reauthenticate/email-code`). (A fresh
 * sign-in at a linked identity provider proves it too, through its round trip: `federated`.)
 */
export type IdentityProof = { password: string } | { code: string } | RegisteredAnswer;

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
    private readonly currentPassword: CurrentPassword,
    private readonly codes: SecondFactorCodes,
    private readonly sessions: SessionsService,
    private readonly accessTokens: AccessTokensService,
    private readonly database: Database,
    private readonly audit: AuditTrail,
    private readonly waysIn: SignInMethodRegistry,
  ) {}

  /**
   * `amr`: the way in's own, as its sign-in says it (a passkey's with user verification, both
   * factors); for the authenticator app's code, a second step on top of the session's first
   * (the first value of its `amr`), as a login's second step says it: never `otp` alone, which
   * is a mailed code's, so that a client (and MFA_REQUIRED_ROLES) can tell the two apart.
   */
  async reauthenticate(
    user: User,
    session: SteppingUp,
    proof: IdentityProof,
    client: ClientInfo,
  ): Promise<Session> {
    let methods: readonly string[];
    if ('password' in proof) {
      await this.currentPassword.confirm(user, proof.password);
      methods = this.waysIn.amrOf({ method: PASSWORD });
    } else if ('code' in proof) {
      const step = await this.codes.confirm(user, { code: proof.code }, client);
      methods = this.waysIn.combine(session.amr?.slice(0, 1), step);
    } else {
      const step = await this.waysIn.check(user, proof, 'reauthentication', client);
      if (!step) throw new Error('No sign-in method takes this proof');
      methods = this.waysIn.amrOf(step);
    }
    return this.renew(user.id, session, methods, client);
  }

  /**
   * A fresh sign-in at an identity provider, with an identity linked to this same user (checked
   * by the provider's round trip): `amr: ["fed"]`.
   */
  federated(userId: string, session: SteppingUp, client: ClientInfo): Promise<Session> {
    return this.renew(userId, session, this.waysIn.amrOf({ method: IDENTITY_PROVIDER }), client);
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
    await this.database.transaction((manager) =>
      this.audit.record(manager, 'reauthenticated', userId, client, { sessionId: session.id }),
    );
    return {
      user: renewed.user,
      tokens: this.accessTokens.sessionTokens(renewed.user, renewed.refresh),
    };
  }
}
