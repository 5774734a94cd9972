import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readOutbox } from './support/mailbox';
import { ServiceProcess, startServiceProcess } from './support/service-process';
import { TestDatabase, createTestDatabase } from './support/test-database';

const KILLS = 8;
/** The longest pause between the last answer of a burst and the kill. */
const MAX_PAUSE_MS = 250;

interface Tokens {
  access: string;
  refresh: string;
}
interface Account {
  email: string;
  username: string;
  password: string;
  session?: Tokens;
  verified: boolean;
}
/** What a burst had answered as done, to be found again after the kill. */
type Acknowledged =
  | { kind: 'registered' | 'verified'; account: Account }
  | { kind: 'logged-in' | 'refreshed'; account: Account }
  | { kind: 'password-changed'; account: Account; oldPassword: string }
  | { kind: 'logged-out'; account: Account; ended: Tokens };

/**
 * `kill -9` a few moments after bursts of answered writes: registrations, logins, refreshes,
 * verifications, password changes and logouts. Whatever was answered as done is found after the
 * restart, on the embedded SQLite file (the default store) as on MariaDB.
 */
describe('every acknowledged write survives kill -9', () => {
  let dataDir: string;
  let database: TestDatabase | undefined;
  let service: ServiceProcess | undefined;
  let env: Record<string, string>;
  let counter = 0;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'auth-crash-'));
    if (process.env.TEST_DATABASE_URL) {
      database = await createTestDatabase();
      env = { DATABASE_URL: database.url };
    } else {
      env = { DATABASE_URL: `sqlite:${join(dataDir, 'auth.sqlite')}` };
    }
  });
  afterAll(async () => {
    await service?.stop();
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const start = async () => {
    service = await startServiceProcess(env, { dataDir });
  };
  const call = async (path: string, init: RequestInit = {}, access?: string) => {
    const headers = new Headers(init.headers);
    headers.set('Content-Type', 'application/json');
    headers.set('X-Token-Delivery', 'body');
    if (access) headers.set('Authorization', `Bearer ${access}`);
    const response = await fetch(`${service!.url}${path}`, { method: 'POST', ...init, headers });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  const tokensOf = (body: Record<string, unknown>): Tokens => ({
    access: body.access_token as string,
    refresh: body.refresh_token as string,
  });
  const post = (path: string, body?: object, access?: string) =>
    call(path, { body: body === undefined ? undefined : JSON.stringify(body) }, access);
  const refresh = (token: string) =>
    call('/auth/refresh', { headers: { Cookie: `refresh_token=${token}` } });
  const login = (account: Account, password = account.password) =>
    post('/auth/login', { email: account.email, password });

  /** The operations of one burst, each on an account no other one of the burst touches. */
  async function burst(accounts: Account[]): Promise<Acknowledged[]> {
    const idle = accounts.filter((account) => !account.session);
    const signedIn = accounts.filter((account) => account.session);
    const mails = await readOutbox(join(dataDir, 'mail'));
    const unverified = idle.filter(
      (account) => !account.verified && mails.some((mail) => mail.to === account.email),
    );
    const operations: Array<Promise<Acknowledged | undefined>> = [];
    for (let n = 0; n < 4; n++) {
      counter += 1;
      const name = `crash${process.pid}x${counter}`;
      const account: Account = {
        email: `${name}@example.com`,
        username: name,
        password: `first-pass-${counter}`,
        verified: false,
      };
      operations.push(
        post('/auth/register', {
          email: account.email,
          password: account.password,
          username: name,
        }).then(({ status }) => (status === 201 ? { kind: 'registered', account } : undefined)),
      );
    }
    for (const account of unverified.slice(0, 2)) {
      const token = mails.filter((mail) => mail.to === account.email).at(-1)!.token;
      operations.push(
        post('/auth/verify-email', { token }).then(({ status }) =>
          status === 200 ? { kind: 'verified', account } : undefined,
        ),
      );
    }
    for (const account of idle.filter((a) => !unverified.slice(0, 2).includes(a)).slice(0, 3)) {
      operations.push(
        login(account).then(({ status, body }) => {
          if (status !== 200) return undefined;
          account.session = tokensOf(body);
          return { kind: 'logged-in', account };
        }),
      );
    }
    const [toRefresh, toChange, toEnd] = [
      signedIn.slice(0, 3),
      signedIn.slice(3, 5),
      signedIn.slice(5, 7),
    ];
    for (const account of toRefresh) {
      operations.push(
        refresh(account.session!.refresh).then(({ status, body }) => {
          if (status !== 200) return undefined;
          account.session = tokensOf(body);
          return { kind: 'refreshed', account };
        }),
      );
    }
    for (const account of toChange) {
      const oldPassword = account.password;
      const newPassword = `${oldPassword}-changed`;
      operations.push(
        post(
          '/users/me/password',
          { currentPassword: oldPassword, newPassword },
          account.session!.access,
        ).then(({ status, body }) => {
          if (status !== 200) return undefined;
          account.password = newPassword;
          account.session = tokensOf(body);
          return { kind: 'password-changed', account, oldPassword };
        }),
      );
    }
    for (const account of toEnd) {
      const ended = account.session!;
      operations.push(
        post('/auth/logout', undefined, ended.access).then(({ status }) => {
          if (status !== 200) return undefined;
          account.session = undefined;
          return { kind: 'logged-out', account, ended };
        }),
      );
    }
    const answered = await Promise.all(operations);
    return answered.filter((done): done is Acknowledged => done !== undefined);
  }

  /** What the restarted service says of each acknowledged write; '' when it holds. */
  async function lost(done: Acknowledged): Promise<string> {
    const { account } = done;
    const what = `${done.kind} ${account.email}`;
    switch (done.kind) {
      case 'registered':
      case 'verified': {
        const signedIn = await login(account);
        if (signedIn.status !== 200) return `${what}: login ${signedIn.status}`;
        account.session = tokensOf(signedIn.body);
        if (done.kind === 'registered') return '';
        const me = await fetch(`${service!.url}/users/me`, {
          headers: { Authorization: `Bearer ${account.session.access}` },
        });
        const user = ((await me.json()) as { data: { user: { email_verified: boolean } } }).data
          .user;
        return user.email_verified ? '' : `${what}: not verified`;
      }
      case 'logged-in':
      case 'refreshed': {
        const renewed = await refresh(account.session!.refresh);
        if (renewed.status !== 200) return `${what}: refresh ${renewed.status}`;
        account.session = tokensOf(renewed.body);
        return '';
      }
      case 'password-changed': {
        if ((await login(account, done.oldPassword)).status !== 401) return `${what}: old works`;
        const renewed = await refresh(account.session!.refresh);
        return renewed.status === 200 ? '' : `${what}: new session ${renewed.status}`;
      }
      case 'logged-out': {
        const check = await fetch(`${service!.url}/auth/verify-token`, {
          headers: { Authorization: `Bearer ${done.ended.access}` },
        });
        const again = await refresh(done.ended.refresh);
        return check.status === 401 && again.status === 401
          ? ''
          : `${what}: access ${check.status}, refresh ${again.status}`;
      }
    }
  }

  it(`finds every answered write after each of ${KILLS} kills`, async () => {
    await start();
    const accounts: Account[] = [];
    const kinds = new Set<string>();
    const missing: string[] = [];
    for (let kill = 0; kill < KILLS; kill++) {
      const done = await burst(accounts);
      for (const item of done) {
        kinds.add(item.kind);
        if (item.kind === 'registered') accounts.push(item.account);
        if (item.kind === 'verified') item.account.verified = true;
      }
      await new Promise((resolve) => setTimeout(resolve, Math.random() * MAX_PAUSE_MS));
      await service!.crash();
      await start();
      for (const item of done) {
        const problem = await lost(item);
        if (problem) missing.push(`after kill ${kill + 1}: ${problem}`);
      }
    }
    expect(missing).toEqual([]);
    // Every kind of write was in a burst that a kill followed.
    expect([...kinds].sort()).toEqual([
      'logged-in',
      'logged-out',
      'password-changed',
      'refreshed',
      'registered',
      'verified',
    ]);
  }, 300_000);
});
