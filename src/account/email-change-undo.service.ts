import { Injectable } from '@nestjs/common';
import { DomainEvents } from '../events/domain-events.service';
import { AppException } from '../common/errors/app.exception';
import { ClientInfo } from '../common/http/request-context';
import { Database } from '../database/database.service';
import { isUniqueViolation } from '../database/database-errors';
import { SessionsService } from '../sessions/sessions.service';
import { invalidLink } from '../tokens/invalid-link';
import { VerificationTokensService } from '../tokens/verification-tokens.service';
import { cleanEmail, normalizeEmail } from '../users/identity.normalizer';
import { User } from '../users/user.entity';
import { UsersService } from '../users/users.service';

const TAKEN = 'Another account has registered the old address since: contact the team';

/**
 * The way back from an email change its owner did not make: the notice to the old address links
 * here. Whoever made the change may hold a session and may have changed the password, so the
 * undo ends every session, and the links sent meanwhile stop working.
 */
@Injectable()
export class EmailChangeUndoService {
  constructor(
    private readonly database: Database,
    private readonly users: UsersService,
    private readonly tokens: VerificationTokensService,
    private readonly sessions: SessionsService,
    private readonly events: DomainEvents,
  ) {}

  /** Uses the token up and moves the account back, in one transaction. */
  async undo(token: string, client?: ClientInfo): Promise<User> {
    return this.database
      .transaction(async (manager) => {
        const { row, refusal } = await this.tokens.consume(manager, token, 'email_change_undo');
        if (!row?.newEmail) throw invalidLink('undo', refusal?.reason);
        const user = await this.users.findIn(manager, row.userId);
        // A disabled account stays as its administrator left it.
        if (!user || user.disabledAt) throw new AppException('INVALID_TOKEN');
        const previousEmail = user.email;
        await this.users.update(manager, row.userId, {
          email: cleanEmail(row.newEmail),
          emailNormalized: normalizeEmail(row.newEmail),
          // The mail that carried the token reached this address.
          emailVerified: true,
          verifiedAt: new Date(),
        });
        for (const purpose of [
          'email_change',
          'email_change_undo',
          'password_reset',
          'email_verification',
        ] as const) {
          await this.tokens.retireOlder(manager, row.userId, purpose);
        }
        const ended = await this.sessions.endAll(row.userId, manager);
        const after = await this.users.requireIn(manager, row.userId);
        const origin = { client };
        if (ended.length > 0) {
          await this.events.publish(manager, {
            type: 'session.revoked',
            data: {
              userId: row.userId,
              sessions: ended.map((id) => ({ id })),
              reason: 'email_changed',
            },
            origin,
          });
        }
        await this.events.publish(manager, {
          type: 'user.email_changed',
          data: { user: after, previousEmail, undone: true },
          origin,
        });
        return after;
      })
      .catch((error: unknown) => {
        // Rolled back: the token still works once the address is free again.
        if (isUniqueViolation(error)) {
          throw new AppException('REGISTRATION_FAILED', { message: TAKEN });
        }
        throw error;
      });
  }
}
