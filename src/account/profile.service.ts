import { Injectable } from '@nestjs/common';
import { DomainEvents } from '../events/domain-events.service';
import { AppException } from '../common/errors/app.exception';
import { ClientInfo } from '../common/http/request-context';
import { Database } from '../database/database.service';
import { isUniqueViolation } from '../database/database-errors';
import { normalizeUsername } from '../users/identity.normalizer';
import { User } from '../users/user.entity';
import { UsersService } from '../users/users.service';
import { cleanName, normalizePicture } from './profile-fields';

/** What a profile update sets; an absent field is kept, `null` clears name and picture. */
export interface ProfileChanges {
  username?: string;
  name?: string | null;
  picture?: string | null;
}

/** The signed-in user's own profile fields. */
@Injectable()
export class ProfileService {
  constructor(
    private readonly database: Database,
    private readonly users: UsersService,
    private readonly events: DomainEvents,
  ) {}

  /**
   * Sets the fields given, with the change on record, in one transaction. The user gets a new
   * generation (`UsersService.changed`), so no instance serves the old copy once this answers. A
   * username another account has (case-insensitively) is 409 REGISTRATION_FAILED, as at
   * registration, and changes nothing.
   */
  async update(userId: string, changes: ProfileChanges, client?: ClientInfo): Promise<User> {
    const fields: Partial<User> = {};
    if (changes.username !== undefined) {
      fields.username = changes.username.trim();
      fields.usernameNormalized = normalizeUsername(changes.username);
    }
    if (changes.name !== undefined) fields.name = cleanName(changes.name);
    if (changes.picture !== undefined) {
      // Validated by the DTO: here only its stored (normal) form is taken.
      fields.picture =
        changes.picture === null ? null : (normalizePicture(changes.picture) ?? null);
    }
    return this.database.transaction(async (manager) => {
      try {
        await this.users.update(manager, userId, fields);
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
        const message = 'This username is already taken';
        throw new AppException('REGISTRATION_FAILED', {
          message,
          details: [{ field: 'username', message }],
        });
      }
      const user = await this.users.findIn(manager, userId);
      // Deleted between the token check and here: the token names no account any more.
      if (!user) throw new AppException('INVALID_TOKEN');
      await this.events.publish(manager, {
        type: 'user.updated',
        data: { user, changes: Object.keys(changes).filter((field) => field in fields) },
        origin: { client },
      });
      return user;
    });
  }
}
