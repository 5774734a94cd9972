import { Injectable } from '@nestjs/common';

/**
 * Claims a module adds to the access tokens of a session (the active organization's `org_id`
 * and `org_role`), read when a session's tokens are renewed (refresh, step-up). A source
 * answers `{}` for a session it has nothing for, and must be one indexed read at most: it runs
 * on every refresh of a session it has claims for. The module marks those sessions
 * (SessionsService.markModuleClaims, in the transaction that makes the claims): the others are
 * not asked.
 */
export type SessionClaimsSource = (
  userId: string,
  sessionId: string,
) => Promise<Record<string, string>>;

/** Where modules register their sources (in `onModuleInit`); the core names none of them. */
@Injectable()
export class SessionClaims {
  private readonly sources: SessionClaimsSource[] = [];

  register(source: SessionClaimsSource): void {
    this.sources.push(source);
  }

  async of(userId: string, sessionId: string): Promise<Record<string, string>> {
    const claims: Record<string, string> = {};
    for (const source of this.sources) Object.assign(claims, await source(userId, sessionId));
    return claims;
  }
}
