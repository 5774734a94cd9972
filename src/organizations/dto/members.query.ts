import { AppException, FieldError } from '../../common/errors/app.exception';

export const MAX_MEMBERS_LIMIT = 100;
/** Past this a page is empty anyway, and the offset would only make the database work. */
const MAX_PAGE = 1_000_000;

export interface MembersPage {
  page: number;
  limit: number;
}

/**
 * `?page=&limit=` of an organization's members, read strictly (400 naming the parameter, never
 * clamped). Neither given: every member, as before paging existed (undefined).
 */
export function readMembersQuery(query: Record<string, unknown>): MembersPage | undefined {
  if (query.page === undefined && query.limit === undefined) return undefined;
  const problems: FieldError[] = [];
  const integer = (name: string, fallback: number, max: number): number => {
    const value = query[name];
    if (value === undefined) return fallback;
    const number = typeof value === 'string' && /^\d{1,9}$/.test(value) ? Number(value) : NaN;
    if (!(number >= 1 && number <= max)) {
      problems.push({ field: name, message: `${name} must be a whole number from 1 to ${max}` });
    }
    return number;
  };
  const page = integer('page', 1, MAX_PAGE);
  const limit = integer('limit', MAX_MEMBERS_LIMIT, MAX_MEMBERS_LIMIT);
  if (problems.length > 0) {
    throw new AppException('VALIDATION_ERROR', {
      message: problems.map((problem) => problem.message).join('; '),
      details: problems,
    });
  }
  return { page, limit };
}
