import { Injectable } from '@nestjs/common';
import { Database } from '../database/database.service';
import { isUniqueViolation } from '../database/database-errors';
import { normalizeUsername } from './identity.normalizer';
import { Role, User } from './user.entity';
import { DuplicateUserError, UsersService } from './users.service';

export interface UserPage {
  items: User[];
  total: number;
  page: number;
  pageSize: number;
}

export interface ListOptions {
  /** From 1. */
  page?: number;
  /** 1 to 100; 20 by default. */
  pageSize?: number;
  /** Part of an email or username, case-insensitive. */
  search?: string;
}

export const MAX_PAGE_SIZE = 100;

/**
 * What a user-management module needs: find, list and search, change a username, set a role.
 * Every change clears the user from the token-check caches of every instance, as a logout does.
 * Authorisation is the caller's: guard management routes with `@Authenticated('admin')`.
 */
@Injectable()
export class UserDirectory {
  constructor(
    private readonly database: Database,
    private readonly users: UsersService,
  ) {}

  find(id: string): Promise<User | null> {
    return this.users.findById(id);
  }

  /** Newest first, then by id, so pages are stable. */
  list(options: ListOptions = {}): Promise<UserPage> {
    const page = Math.max(1, Math.floor(options.page ?? 1));
    const pageSize = Math.min(MAX_PAGE_SIZE, Math.max(1, Math.floor(options.pageSize ?? 20)));
    return this.database.run(async (manager) => {
      const query = manager
        .createQueryBuilder(User, 'user')
        .orderBy('user.createdAt', 'DESC')
        .addOrderBy('user.id', 'ASC')
        .skip((page - 1) * pageSize)
        .take(pageSize);
      const search = options.search?.trim().toLowerCase();
      if (search) {
        // `!` escapes the LIKE wildcards the text may contain: `%` searches for a percent sign.
        const pattern = `%${search.replace(/[!%_]/g, (c) => `!${c}`)}%`;
        query.where(
          "(user.emailNormalized LIKE :pattern ESCAPE '!' OR user.usernameNormalized LIKE :pattern ESCAPE '!')",
          { pattern },
        );
      }
      const [items, total] = await query.getManyAndCount();
      return { items, total, page, pageSize };
    });
  }

  /** Throws DuplicateUserError('username') when another account has it (case-insensitively). */
  async setUsername(id: string, username: string): Promise<User | null> {
    try {
      return await this.update(id, {
        username: username.trim(),
        usernameNormalized: normalizeUsername(username),
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw new DuplicateUserError('username');
      throw error;
    }
  }

  setRole(id: string, role: Role): Promise<User | null> {
    return this.update(id, { role });
  }

  private update(id: string, fields: Partial<User>): Promise<User | null> {
    return this.database.transaction(async (manager) => {
      if (!(await manager.existsBy(User, { id }))) return null;
      this.users.changed(manager, id);
      await manager.update(User, { id }, { ...fields, updatedAt: new Date() });
      return manager.findOneBy(User, { id });
    });
  }
}
