import { AppException } from '../../common/errors/app.exception';
import { readListQuery } from './list-users.query';

describe('readListQuery', () => {
  const refusal = (query: Record<string, unknown>) => {
    try {
      readListQuery(query);
    } catch (error) {
      if (error instanceof AppException) return { code: error.code, details: error.details };
    }
    throw new Error('not refused');
  };

  it('defaults to the first page of 20, without a search', () => {
    expect(readListQuery({})).toEqual({ search: '', page: 1, pageSize: 20 });
  });

  it('takes whole numbers in range and a trimmed search', () => {
    expect(readListQuery({ search: '  ann ', page: '3', pageSize: '100' })).toEqual({
      search: 'ann',
      page: 3,
      pageSize: 100,
    });
  });

  it.each([
    [{ pageSize: '0' }, 'pageSize'],
    [{ pageSize: '101' }, 'pageSize'],
    [{ pageSize: '' }, 'pageSize'],
    [{ pageSize: ' 5' }, 'pageSize'],
    [{ page: '0x10' }, 'page'],
    [{ page: '99999999999' }, 'page'],
    [{ page: ['1', '2'] }, 'page'],
    [{ search: { $ne: '' } }, 'search'],
  ])('refuses %j naming %s', (query, field) => {
    expect(refusal(query)).toEqual({
      code: 'VALIDATION_ERROR',
      details: [{ field, message: expect.stringContaining(field) }],
    });
  });

  it('names every bad parameter at once', () => {
    expect(refusal({ page: 'x', pageSize: 'y' }).details?.map((d) => d.field)).toEqual([
      'page',
      'pageSize',
    ]);
  });
});
