import { AppException, FieldError } from '../../common/errors/app.exception';
import { decodeCursor } from '../../users/user-list-cursor';
import { ListOptions, MAX_PAGE_SIZE } from '../../users/user-directory.service';

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_SEARCH_LENGTH = 254;
/** Past this a page is empty anyway, and the offset would only make the database work. */
const MAX_PAGE = 1_000_000;

/**
 * `?search=&page=&pageSize=&cursor=` read strictly: a value that is not what it should be is a
 * 400 naming the parameter, never silently clamped (a client asking for 500 a page would
 * otherwise get 100 and think it has everything). A cursor is one a page gave (`next_cursor`),
 * in place of `page`. Unknown parameters are ignored, as on any GET.
 */
export function readListQuery(
  query: Record<string, unknown>,
): ListOptions & { search: string; pageSize: number } {
  const problems: FieldError[] = [];
  const single = (name: string): string | undefined => {
    const value = query[name];
    if (value === undefined) return undefined;
    if (typeof value !== 'string') {
      problems.push({ field: name, message: `${name} must be given once` });
      return undefined;
    }
    return value;
  };
  const integer = (name: string, fallback: number, max: number): number => {
    const text = single(name);
    if (text === undefined) return fallback;
    const value = /^\d{1,9}$/.test(text) ? Number(text) : NaN;
    if (!(value >= 1 && value <= max)) {
      problems.push({ field: name, message: `${name} must be a whole number from 1 to ${max}` });
    }
    return value;
  };
  const search = single('search')?.trim() ?? '';
  if (search.length > MAX_SEARCH_LENGTH) {
    problems.push({
      field: 'search',
      message: `search must be at most ${MAX_SEARCH_LENGTH} characters long`,
    });
  }
  const page = integer('page', 1, MAX_PAGE);
  const pageSize = integer('pageSize', DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
  const cursor = single('cursor');
  const after = cursor === undefined ? undefined : decodeCursor(cursor);
  if (cursor !== undefined && !after) {
    problems.push({ field: 'cursor', message: 'cursor must be a next_cursor the listing gave' });
  }
  if (cursor !== undefined && query.page !== undefined) {
    problems.push({ field: 'page', message: 'page cannot be given with cursor' });
  }
  if (problems.length > 0) {
    throw new AppException('VALIDATION_ERROR', {
      message: problems.map((problem) => problem.message).join('; '),
      details: problems,
    });
  }
  return after ? { search, pageSize, after } : { search, page, pageSize };
}
