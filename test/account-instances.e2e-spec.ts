import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readOutbox } from './support/mailbox';
import { ProcessPair, startProcessPair } from './support/process-pair';
import { ServiceProcess } from './support/service-process';

const PASSWORD = 'correct horse';
const NEW_PASSWORD = 'a brand new secret';

/**
 * Account changes made on one instance and checked on another, as two processes on one MariaDB
 * and one Redis (as deployed), with a user cache of a minute: the second instance must serve
 * the change at once, never its warm copy.
 */
describe('account changes across two processes', () => {
  let pair: ProcessPair | undefined;
  let outboxDir: string;
  let a: ServiceProcess | undefined;
  let b: ServiceProcess | undefined;

  beforeAll(async () => {
    outboxDir = mkdtempSync(join(tmpdir(), 'account-outbox-'));
    pair = await startProcessPair({ USER_CACHE_TTL: '60', MAIL_OUTBOX_DIR: outboxDir });
    ({ a, b } = pair);
  }, 120_000);

  afterAll(async () => {
    await pair?.stop();
    if (outboxDir) rmSync(outboxDir, { recursive: true, force: true });
  });

  let counter = 0;
  const credentials = () => {
    counter += 1;
    const name = `inst${process.pid}x${counter}`;
    return { email: `${name}@example.com`, username: name, password: PASSWORD };
  };
  const call = (
    t: ServiceProcess,
    method: string,
    path: string,
    options: { access?: string; body?: object; headers?: Record<string, string> } = {},
  ) =>
    fetch(`${t.url}${path}`, {
      method,
      headers: {
        ...(options.body ? { 'Content-Type': 'application/json' } : {}),
        ...(options.access ? { Authorization: `Bearer ${options.access}` } : {}),
        ...options.headers,
      },
      body: options.body ? JSON.stringify(options.body) : undefined,
    });
  const signIn = async (t: ServiceProcess, account: { email: string; password: string }) => {
    const response = await call(t, 'POST', '/auth/login', {
      body: { email: account.email, password: account.password },
      headers: { 'X-Token-Delivery': 'body' },
    });
    expect(response.status).toBe(200);
    return ((await response.json()) as { access_token: string }).access_token;
  };
  const registered = async () => {
    const account = credentials();
    expect((await call(a!, 'POST', '/auth/register', { body: account })).status).toBe(201);
    return account;
  };
  const profileOn = async (t: ServiceProcess, access: string) => {
    const response = await call(t, 'GET', '/users/me', { access });
    return {
      status: response.status,
      user: ((await response.json()) as { data?: { user: Record<string, unknown> } }).data?.user,
    };
  };

  it('serves a profile change made on A at once on B, whose cache was warm', async () => {
    const account = await registered();
    const access = await signIn(a!, account);
    expect((await profileOn(b!, access)).user).toMatchObject({ name: null });

    const renamed = `${account.username}r`;
    const patched = await call(a!, 'PATCH', '/users/me', {
      access,
      body: { name: 'Ann', picture: 'https://cdn.example.com/a.png', username: renamed },
    });
    expect(patched.status).toBe(200);

    expect((await profileOn(b!, access)).user).toMatchObject({
      name: 'Ann',
      picture: 'https://cdn.example.com/a.png',
      username: renamed,
    });
  });

  it('refuses on B at once every session a password change on A ended; the caller’s new one works there', async () => {
    const account = await registered();
    const caller = await signIn(a!, account);
    const other = await signIn(b!, account);
    expect((await profileOn(b!, other)).status).toBe(200);
    expect((await profileOn(b!, caller)).status).toBe(200);

    const changed = await call(a!, 'POST', '/users/me/password', {
      access: caller,
      body: { currentPassword: PASSWORD, newPassword: NEW_PASSWORD },
      headers: { 'X-Token-Delivery': 'body' },
    });
    expect(changed.status).toBe(200);
    const fresh = ((await changed.json()) as { access_token: string }).access_token;

    expect((await profileOn(b!, other)).status).toBe(401);
    expect((await profileOn(b!, caller)).status).toBe(401);
    expect((await profileOn(b!, fresh)).status).toBe(200);
  });

  it('serves an email change confirmed on A at once on B', async () => {
    const account = await registered();
    const access = await signIn(a!, account);
    expect((await profileOn(b!, access)).user).toMatchObject({ email: account.email });
    const newEmail = `moved-${account.email}`;

    const asked = await call(a!, 'POST', '/users/me/email', {
      access,
      body: { password: PASSWORD, newEmail },
    });
    expect(asked.status).toBe(200);
    const mail = (await readOutbox(outboxDir)).filter((m) => m.to === newEmail).at(-1);
    expect(mail?.token).toEqual(expect.any(String));
    const confirmed = await call(a!, 'POST', '/users/me/email/confirm', {
      body: { token: mail!.token },
    });
    expect(confirmed.status).toBe(200);

    expect((await profileOn(b!, access)).user).toMatchObject({
      email: newEmail,
      email_verified: true,
    });
  });
});
