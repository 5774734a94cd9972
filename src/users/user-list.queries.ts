import { ReadStatement } from '../database/long-reads.service';

export type Dialect = 'mysql' | 'sqlite';

/**
 * Matching users are counted up to this many: `total` is exact below it and a lower bound past
 * it, so a page never pays for counting a million index entries. It is also where a search
 * changes plans: up to this many matches are sorted by date; past it, the listing by date is
 * walked until a page of matches is found (at least one entry in COUNT_LIMIT / users matches, so
 * a page of 20 reads about 20 × users / COUNT_LIMIT entries).
 */
export const COUNT_LIMIT = 10_000;

/** The longest stored email, so a bound past every stored value is one character longer. */
const MAX_VALUE_LENGTH = 254;
const LISTING = 'idx_users_listing';
const BY_EMAIL = 'idx_users_email_listing';
const BY_USERNAME = 'idx_users_username_listing';
const NEWEST_FIRST = ' ORDER BY created_at DESC, id DESC';

/** The values that begin with a prefix: `from <= value < to`. */
export interface PrefixRange {
  from: string;
  to: string;
}

/**
 * The strings beginning with `prefix`, as a range an index on the column answers on both stores
 * (SQLite compares UTF-8 bytes and `utf8mb4_bin` code points: one order). Nothing in the prefix
 * is a wildcard, unlike LIKE, for which SQLite would use only a case-insensitive index.
 */
export function prefixRange(prefix: string): PrefixRange {
  const points = Array.from(prefix, (character) => character.codePointAt(0) as number);
  while (points.length > 0) {
    const last = points.pop() as number;
    if (last < 0x10ffff) {
      // Surrogate code points never occur in a decoded string.
      const next = last === 0xd7ff ? 0xe000 : last + 1;
      return { from: prefix, to: String.fromCodePoint(...points, next) };
    }
  }
  return { from: prefix, to: String.fromCodePoint(0x10ffff).repeat(MAX_VALUE_LENGTH + 1) };
}

/** The matching users, counted up to COUNT_LIMIT + 1 (one more says "more than the limit"). */
export function countStatement(dialect: Dialect, range?: PrefixRange): ReadStatement {
  const bound = COUNT_LIMIT + 1;
  if (!range) {
    return {
      sql: 'SELECT COUNT(*) AS n FROM (SELECT id FROM users LIMIT ?) counted',
      params: [bound],
    };
  }
  // Each side stops at the bound; their union is exact below it, and reaches it past it.
  const side = (column: string, index: string, alias: string) =>
    `SELECT id FROM (SELECT id FROM users ${hint(dialect, index)} ` +
    `WHERE ${column} >= ? AND ${column} < ? LIMIT ?) ${alias}`;
  return {
    sql:
      `SELECT COUNT(*) AS n FROM (${side('email_normalized', BY_EMAIL, 'by_email')} UNION ` +
      `${side('username_normalized', BY_USERNAME, 'by_username')}) matches`,
    params: [range.from, range.to, bound, range.from, range.to, bound],
  };
}

export interface PageQuery {
  range?: PrefixRange;
  /** More than COUNT_LIMIT users match `range`: walk the listing by date instead of sorting. */
  wide: boolean;
  /** Only users after this one: its `created_at` as the store compares it, and its id. */
  after?: [createdAt: unknown, id: string];
  limit: number;
  offset: number;
}

/**
 * The ids and creation times of one page, newest first, then by id (descending, so that one
 * ascending index serves the order on every MySQL and MariaDB version). Every plan reads index
 * entries only: the listing index for the whole list and for a wide search, the indexes of the
 * searched columns for a narrow one.
 */
export function pageStatement(dialect: Dialect, query: PageQuery): ReadStatement {
  // `<=` bounds the index range; the rest only sorts out the users sharing that millisecond.
  const after = query.after ? ['created_at <= ?', '(created_at < ? OR id < ?)'] : [];
  const afterParams = query.after ? [query.after[0], query.after[0], query.after[1]] : [];
  const tail = `${NEWEST_FIRST} LIMIT ? OFFSET ?`;
  const { range } = query;
  if (!range || query.wide) {
    const conditions = [
      ...(range ? [`(${within('email_normalized')} OR ${within('username_normalized')})`] : []),
      ...after,
    ];
    return {
      sql: `SELECT id, created_at FROM users ${hint(dialect, LISTING)}${where(conditions)}${tail}`,
      params: [
        ...(range ? [range.from, range.to, range.from, range.to] : []),
        ...afterParams,
        query.limit,
        query.offset,
      ],
    };
  }
  const side = (column: string, index: string) =>
    `SELECT id, created_at FROM users ${hint(dialect, index)}${where([within(column), ...after])}`;
  return {
    sql: `${side('email_normalized', BY_EMAIL)} UNION ${side('username_normalized', BY_USERNAME)}${tail}`,
    params: [
      range.from,
      range.to,
      ...afterParams,
      range.from,
      range.to,
      ...afterParams,
      query.limit,
      query.offset,
    ],
  };
}

function within(column: string): string {
  return `(${column} >= ? AND ${column} < ?)`;
}

function where(conditions: string[]): string {
  return conditions.length > 0 ? ` WHERE ${conditions.join(' AND ')}` : '';
}

/** The planners guess without statistics (SQLite) or from estimates: each plan names its index. */
function hint(dialect: Dialect, index: string): string {
  return dialect === 'sqlite' ? `INDEXED BY ${index}` : `FORCE INDEX (${index})`;
}
