import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
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
 * What a user-management module needs: find, list and search, change a username, set a role,
 * disable an account. Every change clears the user from the token-check caches of every
 * instance, as a logout does. Authorisation is the caller's: guard management routes with
 * `@Authenticated('admin')`. The `…In(manager, …)` forms run inside the caller's transaction, so a
 * change and its audit event commit together. Part of UsersModule, which owns the users table:
 * the listing is its one query of its own, the rest goes through UsersService.
 */
@Injectable()
export class UserDirectory {
  constructor(
    @InjectRepository(User) private readonly repository: Repository<User>,
    private readonly database: Database,
    private readonly users: UsersService,
  ) {}

  find(id: string): Promise<User | null> {
    return this.users.findById(id);
  }

  /** Inside the caller's transaction. */
  findIn(manager: EntityManager, id: string): Promise<User | null> {
    return this.users.findIn(manager, id);
  }

  /** Case-insensitively and normalised, as login finds it. */
  findByEmail(email: string): Promise<User | null> {
    return this.users.findByEmail(email);
  }

  /**
   * The user, its row held until the caller's transaction ends (MySQL), so two administrators
   * acting on one account at once act one after the other. Callers that also revoke sessions
   * must revoke them first: sessions are locked before the user row everywhere.
   */
  findForUpdate(manager: EntityManager, id: string): Promise<User | null> {
    return this.users.findForUpdate(manager, id);
  }

  /** Newest first, then by id, so pages are stable. */
  list(options: ListOptions = {}): Promise<UserPage> {
    const page = Math.max(1, Math.floor(options.page ?? 1));
    const pageSize = Math.min(MAX_PAGE_SIZE, Math.max(1, Math.floor(options.pageSize ?? 20)));
    return this.database.run(async (manager) => {
      const query = manager
        .withRepository(this.repository)
        .createQueryBuilder('user')
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
    return this.database.transaction((manager) => this.setRoleIn(manager, id, role));
  }

  setRoleIn(manager: EntityManager, id: string, role: Role): Promise<User | null> {
    return this.updateIn(manager, id, { role });
  }

  /**
   * Sets or clears `disabled_at`. Disabling alone does not end the sessions: the caller revokes
   * them in the same transaction (SessionsService), and the token checks refuse a disabled
   * user whatever its tokens say.
   */
  setDisabledIn(manager: EntityManager, id: string, disabledAt: Date | null): Promise<User | null> {
    return this.updateIn(manager, id, { disabledAt });
  }

  private async updateIn(
    manager: EntityManager,
    id: string,
    fields: Partial<User>,
  ): Promise<User | null> {
    if (!(await this.users.existsIn(manager, id))) return null;
    await this.users.update(manager, id, fields);
    return this.users.findIn(manager, id);
  }

  private update(id: string, fields: Partial<User>): Promise<User | null> {
    return this.database.transaction((manager) => this.updateIn(manager, id, fields));
  }
}
