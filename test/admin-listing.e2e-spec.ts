import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { AdminUsersService } from '../src/admin/admin-users.service';
import { UserDirectory } from '../src/users/user-directory.service';
import { COUNT_LIMIT } from '../src/users/user-list.queries';
import {
  LoggedIn,
  expectError,
  registerAndLogin,
  registerUser,
  uniqueUser,
} from './support/auth-helpers';
import { TestApp, startTestApp } from './support/test-app';

const ADMIN = '/api/v1/admin/users';

interface Listed {
  id: string;
  email: string;
  username: string;
  created_at: string;
}

interface Page {
  users: Listed[];
  page: number | null;
  page_size: number;
  total: number;
  total_exact: boolean;
  next_cursor: string | null;
}

/** The service on an embedded SQLite file (where the listing's reads leave the event loop). */
async function startOnSqliteFile(): Promise<{ t: TestApp; close(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'auth-listing-'));
  const t = await startTestApp({ DATABASE_URL: `sqlite:${join(dir, 'auth.sqlite')}` });
  return {
    t,
    close: async () => {
      await t.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The suite's store: MariaDB in CI's second pass, otherwise a SQLite file (not in memory). */
async function startOnSuiteStore(): Promise<{ t: TestApp; close(): Promise<void> }> {
  if (!process.env.TEST_DATABASE_URL) return startOnSqliteFile();
  const t = await startTestApp();
  return { t, close: () => t.close() };
}

async function promotedAdmin(t: TestApp): Promise<LoggedIn> {
  const admin = await registerAndLogin(t, uniqueUser('admin'));
  await t.app.get(UserDirectory).setRole(admin.user.id, 'admin');
  return admin;
}

/** A datetime as both stores take it in SQL: UTC, milliseconds, no zone. */
const sqlDate = (date: Date) => date.toISOString().slice(0, 23).replace('T', ' ');

/**
 * `count` users straight in SQL (registering that many would take minutes), named
 * `<prefix><n>`, created one second apart going back from `newest`.
 */
async function insertUsers(
  dataSource: DataSource,
  prefix: string,
  count: number,
  newest = new Date(Date.now() - 86_400_000),
): Promise<void> {
  const columns =
    'id, email, email_normalized, username, username_normalized, password_hash, role, ' +
    'email_verified, token_version, created_at, updated_at';
  for (let start = 0; start < count; start += 1000) {
    const rows: unknown[] = [];
    const size = Math.min(1000, count - start);
    for (let i = start; i < start + size; i++) {
      const name = `${prefix}${i}`;
      const at = sqlDate(new Date(newest.getTime() - i * 1000));
      const id = `user_${String(Date.now()).slice(-9)}${String(i).padStart(9, '0')}`;
      rows.push(id, `${name}@example.com`, `${name}@example.com`, name, name, 'x', 'user', 0, 0);
      rows.push(at, at);
    }
    const values = Array.from({ length: size }, () => `(${Array(11).fill('?').join(', ')})`);
    await dataSource.query(`INSERT INTO users (${columns}) VALUES ${values.join(', ')}`, rows);
  }
}

/** Newest first, then by id descending: strictly, so no user is there twice. */
function expectListingOrder(users: Listed[]): void {
  for (let i = 1; i < users.length; i++) {
    const [before, after] = [users[i - 1], users[i]];
    const order =
      after.created_at.localeCompare(before.created_at) || after.id.localeCompare(before.id);
    expect({ before, after, order }).toEqual({ before, after, order: -1 });
  }
}

/**
 * Issue 33: the administrators' listing by cursor (each page costs what the first does, and no
 * user is shown twice or skipped while others register), its search by the beginning of the
 * email or username through an index, `page` as before, and on the embedded store its reads off
 * the event loop. On a SQLite file and, in CI's second pass, on MariaDB.
 */
describe('GET /admin/users: cursor, search and page', () => {
  let t: TestApp;
  let close: () => Promise<void>;
  let admin: LoggedIn;

  beforeAll(async () => {
    ({ t, close } = await startOnSuiteStore());
    admin = await promotedAdmin(t);
  });
  afterAll(() => close());

  const list = (query: string) =>
    t.http().get(`${ADMIN}?${query}`).set('Authorization', `Bearer ${admin.access}`);
  const page = async (query: string): Promise<Page> =>
    (await list(query).expect(200)).body.data as Page;

  it('pages through every user exactly once by cursor while others register', async () => {
    const tag = `walk${Date.now().toString(36)}`;
    for (let i = 0; i < 20; i++) await registerUser(t, uniqueUser(`${tag}a`));
    // Twelve users registered in one millisecond: pages of 7 split them.
    const tied = (await page(`search=${tag}&pageSize=12`)).users.map((u) => u.id);
    await t.dataSource.query(
      `UPDATE users SET created_at = ? WHERE id IN (${tied.map(() => '?').join(', ')})`,
      [sqlDate(new Date(Date.now() - 60_000)), ...tied],
    );
    const before = new Set(
      (await t.dataSource.query<Array<{ id: string }>>('SELECT id FROM users')).map((r) => r.id),
    );

    const registered = new Set<string>();
    const registrations: Array<Promise<unknown>> = [];
    const seen: Listed[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      // A registration in flight while each page is read.
      registrations.push(
        registerUser(t, uniqueUser(`${tag}b`)).then(({ user }) => registered.add(user.id)),
      );
      const data: Page = await page(`pageSize=7${cursor ? `&cursor=${cursor}` : ''}`);
      if (pages > 0) expect(data.page).toBeNull();
      if (data.next_cursor !== null) expect(data.users).toHaveLength(7);
      seen.push(...data.users);
      cursor = data.next_cursor;
      pages += 1;
      expect(typeof cursor === 'string' || cursor === null).toBe(true);
    } while (cursor !== null && pages < 100);
    await Promise.all(registrations);

    const ids = seen.map((u) => u.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.filter((id) => before.has(id)).sort()).toEqual([...before].sort());
    expect(ids.filter((id) => !before.has(id) && !registered.has(id))).toEqual([]);
    expectListingOrder(seen);
    // The tied users one after the other, by id, across a page boundary (12 > 7).
    const tiedInOrder = [...tied].sort().reverse();
    const first = ids.indexOf(tiedInOrder[0]);
    expect(tiedInOrder.map((id) => ids.indexOf(id))).toEqual(tied.map((_, i) => first + i));
  });

  it('searches the beginning of the email or the username, case-insensitively', async () => {
    const tag = `pre${Date.now().toString(36)}`;
    const ann = { ...uniqueUser('u'), email: `${tag}ann@example.com`, username: `${tag}Zed` };
    const bob = { ...uniqueUser('u'), email: `bob.${tag}@example.com`, username: `${tag}bob` };
    for (const user of [ann, bob]) await registerUser(t, user);
    const found = async (search: string) =>
      (await page(`search=${encodeURIComponent(search)}`)).users.map((u) => u.email).sort();

    expect(await found(tag.toUpperCase())).toEqual([ann.email, bob.email].sort());
    expect(await found(`${tag}ANN@EXAMPLE.COM`)).toEqual([ann.email]);
    expect(await found(`${tag}zed`)).toEqual([ann.email]);
    expect(await found(`  ${tag}b `)).toEqual([bob.email]);
    // The beginning only: part of the middle or the end finds nobody.
    expect(await found(`.${tag}`)).toEqual([]);
    expect(await found(ann.email.slice(3))).toEqual([]);
    expect(await found('ann@example.com')).toEqual([]);
  });

  it('takes `%`, `_` and `\\` literally, never as wildcards', async () => {
    const tag = `lit${Date.now().toString(36)}`;
    const users = {
      percent: { ...uniqueUser('p'), email: `${tag}%1@example.com` },
      plain: { ...uniqueUser('p'), email: `${tag}x1@example.com` },
      underscore: { ...uniqueUser('u'), username: `${tag}a_b` },
      other: { ...uniqueUser('u'), username: `${tag}axb` },
    };
    for (const user of Object.values(users)) await registerUser(t, user);
    const found = async (search: string) =>
      (await page(`search=${encodeURIComponent(search)}`)).users.map((u) => u.username).sort();

    expect(await found(`${tag}%`)).toEqual([users.percent.username]);
    expect(await found(`${tag}a_`)).toEqual([users.underscore.username]);
    expect(await found(`${tag}_`)).toEqual([]);
    expect(await found(`${tag}%%`)).toEqual([]);
    expect(await found(`${tag}\\`)).toEqual([]);
    expect(await found('%')).toEqual([]);
    expect(await found('_')).toEqual([]);
  });

  it('pages a search by cursor, each matching user once', async () => {
    const tag = `sc${Date.now().toString(36)}`;
    const made = new Set<string>();
    for (let i = 0; i < 7; i++) made.add((await registerUser(t, uniqueUser(`${tag}n`))).user.id);
    const seen: Listed[] = [];
    let data = await page(`search=${tag}&pageSize=3`);
    expect(data).toMatchObject({ page: 1, total: 7, total_exact: true });
    seen.push(...data.users);
    while (data.next_cursor) {
      data = await page(`search=${tag}&pageSize=3&cursor=${data.next_cursor}`);
      expect(data).toMatchObject({ page: null, page_size: 3, total: 7 });
      seen.push(...data.users);
    }
    expect(seen.map((u) => u.id).sort()).toEqual([...made].sort());
    expectListingOrder(seen);
  });

  it('still pages by number, and a page gives the cursor of the next', async () => {
    const tag = `pg${Date.now().toString(36)}`;
    for (let i = 0; i < 5; i++) await registerUser(t, uniqueUser(`${tag}n`));
    const pages = [];
    for (let n = 1; n <= 3; n++) pages.push(await page(`search=${tag}&pageSize=2&page=${n}`));
    expect(pages.map((p) => [p.page, p.users.length, p.total])).toEqual([
      [1, 2, 5],
      [2, 2, 5],
      [3, 1, 5],
    ]);
    expect(pages.map((p) => p.next_cursor === null)).toEqual([false, false, true]);
    const byNumber = pages.flatMap((p) => p.users);
    expectListingOrder(byNumber);
    // The cursor of page 1 leads where page 2 is.
    const next = await page(`search=${tag}&pageSize=2&cursor=${pages[0].next_cursor}`);
    expect(next.users.map((u) => u.id)).toEqual(pages[1].users.map((u) => u.id));
    expect(await page(`search=${tag}&pageSize=2&page=4`)).toMatchObject({ users: [], total: 5 });
  });

  it('refuses a cursor it did not give with 400 VALIDATION_ERROR naming it', async () => {
    const forged = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const { next_cursor: real } = await page('pageSize=1');
    for (const [query, field] of [
      ['cursor=abc', 'cursor'],
      ['cursor=', 'cursor'],
      [`cursor=${'A'.repeat(200)}`, 'cursor'],
      [`cursor=${forged({ created: 1 })}`, 'cursor'],
      [`cursor=${forged([1.5, 'user_1'])}`, 'cursor'],
      [`cursor=${forged([1, "user_1' OR 1=1"])}`, 'cursor'],
      [`cursor=${forged([1, 2])}`, 'cursor'],
      [`cursor=${real}&cursor=${real}`, 'cursor'],
      [`cursor=${real}&page=2`, 'page'],
    ]) {
      const response = await list(query);
      expectError(response, 400, 'VALIDATION_ERROR');
      expect(response.body.details).toEqual([{ field, message: expect.any(String) }]);
    }
  });

  it('counts up to the limit, and a search matching more walks the listing by date', async () => {
    const tag = `wide${Date.now().toString(36)}`;
    await insertUsers(t.dataSource, `${tag}w`, COUNT_LIMIT + 50);
    const everyone = await page('pageSize=1');
    expect(everyone).toMatchObject({ total: COUNT_LIMIT, total_exact: false });

    const expected = (
      await t.dataSource.query<Array<{ id: string }>>(
        `SELECT id FROM users WHERE username_normalized >= ? AND username_normalized < ?
         ORDER BY created_at DESC, id DESC LIMIT 250`,
        [`${tag}w`, `${tag}x`],
      )
    ).map((r) => r.id);
    const seen: Listed[] = [];
    let data = await page(`search=${tag}W&pageSize=100`);
    expect(data).toMatchObject({ total: COUNT_LIMIT, total_exact: false });
    seen.push(...data.users);
    while (seen.length < 250) {
      data = await page(`search=${tag}w&pageSize=100&cursor=${data.next_cursor}`);
      seen.push(...data.users);
    }
    expect(seen.slice(0, 250).map((u) => u.id)).toEqual(expected);
    expect(seen.every((u) => u.username.startsWith(`${tag}w`))).toBe(true);
    // Deep by number, too: the last page of the match.
    const last = await page(`search=${tag}w&pageSize=100&page=101`);
    expect(last.users.map((u) => u.username).sort()).toEqual(
      Array.from({ length: 50 }, (_, i) => `${tag}w${COUNT_LIMIT + i}`).sort(),
    );
    expect(last.next_cursor).toBeNull();
  });
});

/**
 * better-sqlite3 answers synchronously: a listing read on the service's connection would hold
 * every other request until it ended. Whatever the store of the pass, this runs on a SQLite file
 * large enough for a deep page and a broad search to take a while.
 */
describe('GET /admin/users on the embedded store: the event loop stays free', () => {
  let t: TestApp;
  let close: () => Promise<void>;
  let admin: LoggedIn;
  const tag = `loop${Date.now().toString(36)}`;

  beforeAll(async () => {
    ({ t, close } = await startOnSqliteFile());
    await insertUsers(t.dataSource, tag, 100_000);
    admin = await promotedAdmin(t);
  });
  afterAll(() => close());

  /**
   * The order of two events: a timer scheduled as the listing starts, and the listing's answer.
   * A read on the event loop answers first (the timer cannot fire until the loop is free).
   */
  async function orderDuring(query: string): Promise<string[]> {
    const order: string[] = [];
    const service = t.app.get(AdminUsersService);
    const list = service.list.bind(service);
    const spy = jest.spyOn(service, 'list').mockImplementation((options) => {
      setImmediate(() => order.push('timer'));
      const answer = list(options);
      void answer.then(() => order.push('answer'));
      return answer;
    });
    try {
      const response = await t
        .http()
        .get(`${ADMIN}?${query}`)
        .set('Authorization', `Bearer ${admin.access}`)
        .expect(200);
      expect(response.body.data.users.length).toBeGreaterThan(0);
    } finally {
      spy.mockRestore();
    }
    return order;
  }

  it('answers a deep page, a cursor page and a search without holding the loop', async () => {
    expect(await orderDuring('page=3900&pageSize=25')).toEqual(['timer', 'answer']);
    const { next_cursor: cursor } = (
      await t
        .http()
        .get(`${ADMIN}?pageSize=100&page=500`)
        .set('Authorization', `Bearer ${admin.access}`)
        .expect(200)
    ).body.data as Page;
    expect(await orderDuring(`pageSize=100&cursor=${cursor}`)).toEqual(['timer', 'answer']);
    expect(await orderDuring(`search=${tag}9&pageSize=100&page=20`)).toEqual(['timer', 'answer']);
  });
});
