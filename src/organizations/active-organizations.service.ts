import { Injectable, OnModuleInit } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { AppException } from '../common/errors/app.exception';
import { Database } from '../database/database.service';
import { SessionsService } from '../sessions/sessions.service';
import { SessionClaims } from '../tokens/session-claims';
import { Memberships } from './memberships.service';
import { SessionOrganization } from './session-organization.entity';

interface Chosen {
  organization_id: string;
  role: string | null;
}

/**
 * A session's active organization: chosen (or cleared) by its user, kept by session family, and
 * put in the session's access tokens as `org_id` and `org_role` whenever they are renewed
 * (SessionClaims: refresh, step-up). The role is read from the membership at each renewal, in
 * the same statement as the choice (one read by primary key), so a demotion shows at the next
 * refresh and a removal drops the claims (a removal also deletes the choice). Sessions that
 * chose none are not read: the choice marks the session (SessionsService.markModuleClaims).
 */
@Injectable()
export class ActiveOrganizations implements OnModuleInit {
  constructor(
    @InjectRepository(SessionOrganization)
    private readonly chosen: Repository<SessionOrganization>,
    private readonly database: Database,
    private readonly memberships: Memberships,
    private readonly sessionClaims: SessionClaims,
    private readonly sessions: SessionsService,
  ) {}

  onModuleInit(): void {
    this.sessionClaims.register((userId, sessionId) => this.claimsOf(userId, sessionId));
  }

  /** 404 ORGANIZATION_NOT_FOUND unless the user is a member; null clears the choice. */
  async choose(userId: string, sessionId: string, organizationId: string | null): Promise<void> {
    await this.database.transaction(async (manager) => {
      const repository = manager.withRepository(this.chosen);
      // Only a session that chose one has its refreshes read the choice.
      await this.sessions.markModuleClaims(manager, userId, sessionId, organizationId !== null);
      if (organizationId === null) {
        await repository.delete({ familyId: sessionId, userId });
        return;
      }
      if (!(await this.memberships.findIn(manager, organizationId, userId))) {
        throw new AppException('ORGANIZATION_NOT_FOUND');
      }
      await repository.delete({ familyId: sessionId });
      await repository.insert({
        familyId: sessionId,
        userId,
        organizationId,
        createdAt: new Date(),
      });
    });
  }

  async claimsOf(userId: string, sessionId: string): Promise<Record<string, string>> {
    const rows: Chosen[] = await this.chosen.query(
      'SELECT s.organization_id AS organization_id, m.role AS role FROM session_organizations s' +
        ' LEFT JOIN organization_members m ON m.organization_id = s.organization_id' +
        ' AND m.user_id = s.user_id WHERE s.family_id = ? AND s.user_id = ?',
      [sessionId, userId],
    );
    const row = rows[0];
    return row?.role ? { org_id: row.organization_id, org_role: row.role } : {};
  }
}
