import { Injectable } from '@nestjs/common';
import { AuditTrail } from '../audit/audit-trail.service';
import { ClientInfo } from '../common/http/request-context';
import { Database } from '../database/database.service';
import { RefreshClaims } from '../sessions/refresh-claims';
import { SessionsService } from '../sessions/sessions.service';
import { AccessTokensService } from '../tokens/access-tokens.service';
import { User } from '../users/user.entity';
import { Session } from './auth.service';
import { CurrentPassword } from './current-password.service';
import { SecondFactorCodes } from './second-factor-codes.service';

/** What proves the signed-in person is the account's owner, once more. */
export type IdentityProof = { password: string } | { code: string };

/**
 * Step-up: the signed-in session is authenticated again, with the password or a code from the
 * authenticator app, and gets new tokens saying so (`auth_time` now, `amr` the method). Wrong
 * answers count towards the account's login slow-down, as at login.
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
  ) {}

  async reauthenticate(
    user: User,
    sessionId: string,
    proof: IdentityProof,
    presented: RefreshClaims | undefined,
    client: ClientInfo,
  ): Promise<Session> {
    if ('password' in proof) await this.currentPassword.confirm(user, proof.password);
    else await this.codes.confirm(user, { code: proof.code }, client);
    const methods = 'password' in proof ? ['pwd'] : ['otp'];
    const renewed = await this.sessions.reauthenticate(
      user.id,
      sessionId,
      methods,
      presented,
      client,
    );
    await this.database.transaction((manager) =>
      this.audit.record(manager, 'reauthenticated', user.id, client, { sessionId }),
    );
    return {
      user: renewed.user,
      tokens: this.accessTokens.sessionTokens(renewed.user, renewed.refresh),
    };
  }
}
