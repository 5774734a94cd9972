import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, In, Repository } from 'typeorm';
import { Database } from '../database/database.service';
import { isUniqueViolation } from '../database/database-errors';
import { LongReads, Row } from '../database/long-reads.service';
import { normalizeEmail, normalizeUsername } from './identity.normalizer';
import { ListPosition } from './user-list-cursor';
import {
  COUNT_LIMIT,
  PrefixRange,
  countStatement,
  pageStatement,
  prefixRange,
} from './user-list.queries';
import { Role, User } from './user.entity';
import { DuplicateUserError, UsersService } from './users.service';

export interface UserPage {
  items: User[];
  /** The page answered, from 1; null for a page asked for with `after`. */
  page: number | null;
  pageSize: number;
  /** Users matching, counted up to COUNT_LIMIT: exact when `totalExact`, else a lower bound. */
  total: number;
  totalExact: boolean;
  /** The last user of this page when more follow (the next page's `after`); null on the last. */
  next: ListPosition | null;
}

export interface ListOptions {
  /** From 1: skips the users of the pages before, read one by one (see `after`). */
  page?: number;
  /** 1 to 100; 20 by default. */
  pageSize?: number;
  /** The beginning of an email or a username, case-insensitive and literal. */
  search?: string;
  /**
   * The users after this one (a page's `next`), however deep: takes the place of `page`. Users
   * registered meanwhile come before it, so paging this way shows each user once.
   */
  after?: ListPosition;
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
    private readonly reads: LongReads,
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

  /**
   * Newest first, then by id, so pages are stable. The ids of a page are read as LongReads
   * reads (off the event loop on the embedded store) from indexes alone; the users themselves are
   * then read by id.
   */
  async list(options: ListOptions = {}): Promise<UserPage> {
    const pageSize = Math.min(MAX_PAGE_SIZE, Math.max(1, Math.floor(options.pageSize ?? 20)));
    const page = options.after ? null : Math.max(1, Math.floor(options.page ?? 1));
    // The normal form of both columns (emails are NFC as well; usernames are ASCII).
    const search = normalizeEmail(options.search ?? '');
    const range = search ? prefixRange(search) : undefined;
    const { matching, rows } = await this.readPage(range, {
      after: options.after && [this.database.sqlDate(options.after.createdAt), options.after.id],
      // One more than a page says whether another follows.
      limit: pageSize + 1,
      offset: page === null ? 0 : (page - 1) * pageSize,
    });
    const shown = rows.slice(0, pageSize);
    const last = shown[shown.length - 1];
    return {
      items: await this.usersById(shown.map((row) => String(row.id))),
      page,
      pageSize,
      total: Math.min(matching, COUNT_LIMIT),
      totalExact: matching <= COUNT_LIMIT,
      next:
        rows.length > pageSize
          ? { createdAt: storedDate(last.created_at), id: String(last.id) }
          : null,
    };
  }

  /** How many match (up to the limit, which also picks a search's plan), and the page's rows. */
  private async readPage(
    range: PrefixRange | undefined,
    page: { after?: [unknown, string]; limit: number; offset: number },
  ): Promise<{ matching: number; rows: Row[] }> {
    const { dialect } = this.reads;
    const count = countStatement(dialect, range);
    if (!range) {
      const [[counted], rows] = await this.reads.all([
        count,
        pageStatement(dialect, { ...page, wide: true }),
      ]);
      return { matching: Number(counted.n), rows };
    }
    const [[counted]] = await this.reads.all([count]);
    const matching = Number(counted.n);
    const [rows] = await this.reads.all([
      pageStatement(dialect, { ...page, range, wide: matching > COUNT_LIMIT }),
    ]);
    return { matching, rows };
  }

  /** In the order of `ids`; one deleted since its id was read is left out. */
  private async usersById(ids: string[]): Promise<User[]> {
    if (ids.length === 0) return [];
    const users = await this.repository.findBy({ id: In(ids) });
    const byId = new Map(users.map((user) => [user.id, user]));
    return ids.flatMap((id) => byId.get(id) ?? []);
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

/** A `created_at` as read in plain SQL: a Date from mysql2, TypeORM's UTC text on SQLite. */
function storedDate(value: unknown): Date {
  return value instanceof Date ? value : new Date(`${String(value).replace(' ', 'T')}Z`);
}
