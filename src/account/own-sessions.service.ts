import { EntityManager } from 'typeorm';
import { Injectable } from '@nestjs/common';
import { DomainEvents } from '../events/domain-events.service';
import { AppException } from '../common/errors/app.exception';
import { ClientInfo } from '../common/http/request-context';
import { Database } from '../database/database.service';
import { SessionLifetime } from '../sessions/session-lifetime';
import { SessionsService } from '../sessions/sessions.service';
import { SessionView } from './session.view';

/**
 * A signed-in user's own sessions, as `/users/me/sessions` shows and ends them (the sessions
 * module owns them; this adds the view and the audit trail).
 */
@Injectable()
export class OwnSessionsService {
  constructor(
    private readonly database: Database,
    private readonly sessions: SessionsService,
    private readonly events: DomainEvents,
    private readonly lifetime: SessionLifetime,
  ) {}

  /** Live sessions only (not revoked, not expired, not past SESSION_MAX_AGE), newest use first. */
  async list(userId: string, currentSessionId: string | undefined): Promise<SessionView[]> {
    const live = await this.sessions.list(userId);
    return live.map((row) => ({
      id: row.familyId,
      created_at: this.lifetime.startOf(row).toISOString(),
      last_used_at: row.createdAt.toISOString(),
      expires_at: this.lifetime.expiryOf(row).toISOString(),
      ip: row.ip,
      user_agent: row.userAgent,
      current: row.familyId === currentSessionId,
    }));
  }

  /**
   * Ends one of the user's live sessions; another user's, an unknown or an ended one are the
   * same `404 SESSION_NOT_FOUND`, so the answer tells nothing of other accounts' sessions.
   */
  async end(userId: string, sessionId: string, client: ClientInfo): Promise<void> {
    const ended = await this.database.transaction(async (manager) => {
      if (!(await this.sessions.end(manager, userId, sessionId))) return false;
      await this.ended(manager, userId, [sessionId], client);
      return true;
    });
    if (!ended) throw new AppException('SESSION_NOT_FOUND');
  }

  /** Every live session of the user but `keepSessionId`; returns how many were ended. */
  endOthers(userId: string, keepSessionId: string, client: ClientInfo): Promise<number> {
    return this.database.transaction(async (manager) => {
      const ended = await this.sessions.endOthers(manager, userId, keepSessionId);
      if (ended.length > 0) await this.ended(manager, userId, ended, client);
      return ended.length;
    });
  }

  private ended(
    manager: EntityManager,
    userId: string,
    sessions: string[],
    client: ClientInfo,
  ): Promise<void> {
    return this.events.publish(manager, {
      type: 'session.revoked',
      data: { userId, sessions: sessions.map((id) => ({ id })), reason: 'ended_elsewhere' },
      origin: { client },
    });
  }
}
