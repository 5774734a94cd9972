import { COUNT_LIMIT, countStatement, pageStatement, prefixRange } from './user-list.queries';

const placeholders = (sql: string) => sql.split('?').length - 1;

describe('the listing queries', () => {
  it('turns a prefix into the range of the strings beginning with it', () => {
    expect(prefixRange('ann')).toEqual({ from: 'ann', to: 'ano' });
    expect(prefixRange('a%_')).toEqual({ from: 'a%_', to: 'a%`' });
    expect(prefixRange('zoë')).toEqual({ from: 'zoë', to: 'zoì' });
    expect(prefixRange('a\u{1F600}')).toEqual({ from: 'a\u{1F600}', to: 'a\u{1F601}' });
    // The code point before the surrogates is followed by the first after them.
    expect(prefixRange('a\uD7FF')).toEqual({ from: 'a\uD7FF', to: 'a\uE000' });
    // The last code point has no successor: the one before it moves instead.
    expect(prefixRange('a\u{10FFFF}')).toEqual({ from: 'a\u{10FFFF}', to: 'b' });
    const top = prefixRange('\u{10FFFF}');
    expect(Array.from(top.to)).toHaveLength(255);
  });

  it('binds a value to every placeholder of every plan', () => {
    const range = prefixRange('ann');
    const after: [string, string] = ['2026-01-01 00:00:00.000', 'user_1'];
    for (const dialect of ['sqlite', 'mysql'] as const) {
      const statements = [
        countStatement(dialect),
        countStatement(dialect, range),
        ...[undefined, after].flatMap((position) =>
          [undefined, range].flatMap((r) =>
            [false, true].map((wide) =>
              pageStatement(dialect, { range: r, wide, after: position, limit: 21, offset: 0 }),
            ),
          ),
        ),
      ];
      for (const { sql, params } of statements) {
        expect({ sql, count: params.length }).toEqual({ sql, count: placeholders(sql) });
      }
    }
    expect(countStatement('sqlite').params).toEqual([COUNT_LIMIT + 1]);
  });

  it('names the index each plan reads, in the dialect of the store', () => {
    const range = prefixRange('ann');
    const narrow = pageStatement('mysql', { range, wide: false, limit: 21, offset: 0 });
    expect(narrow.sql).toContain('FORCE INDEX (idx_users_email_listing)');
    expect(narrow.sql).toContain('FORCE INDEX (idx_users_username_listing)');
    const wide = pageStatement('sqlite', { range, wide: true, limit: 21, offset: 0 });
    expect(wide.sql).toContain('INDEXED BY idx_users_listing');
  });
});
