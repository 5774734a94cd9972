import { UserDirectory } from '../src/users/user-directory.service';
import { DuplicateUserError } from '../src/users/users.service';
import { expectError, registerAndLogin, uniqueUser } from './support/auth-helpers';
import { TestApp, startTestApp } from './support/test-app';

describe('GET /users/me and the user-management seam', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  const me = (access?: string) => {
    const request = t.http().get('/api/v1/users/me');
    return access ? request.set('Authorization', `Bearer ${access}`) : request;
  };

  it('returns the signed-in user’s profile, by bearer token or cookie', async () => {
    const session = await registerAndLogin(t);

    const byBearer = await me(session.access).expect(200);
    const byCookie = await t
      .http()
      .get('/api/v1/users/me')
      .set('Cookie', `access_token=${session.access}`)
      .expect(200);

    expect(byBearer.body).toEqual({
      success: true,
      message: 'Current user',
      data: {
        user: {
          id: session.user.id,
          email: session.credentials.email,
          username: session.credentials.username,
          role: 'user',
          email_verified: false,
          name: null,
          picture: null,
          verified_at: null,
          created_at: expect.any(String),
          updated_at: expect.any(String),
          // What a change can be confirmed with: the password, or a step-up by a mailed code.
          has_password: true,
          reauthentication_methods: ['password', 'email_code'],
        },
      },
    });
    expect(byCookie.body).toEqual(byBearer.body);
  });

  it('refuses a missing, revoked or wrong-kind token with 401 INVALID_TOKEN', async () => {
    const session = await registerAndLogin(t);
    expectError(await me(), 401, 'INVALID_TOKEN');
    expectError(await me(session.refresh), 401, 'INVALID_TOKEN');
    await t
      .http()
      .post('/api/v1/auth/logout')
      .set('Authorization', `Bearer ${session.access}`)
      .expect(200);
    expectError(await me(session.access), 401, 'INVALID_TOKEN');
  });

  it('lists users by page, newest first, and searches emails and usernames literally', async () => {
    const directory = t.app.get(UserDirectory);
    const tag = `dir${Date.now().toString(36)}`;
    const made: string[] = [];
    for (let i = 0; i < 3; i++) {
      const { user } = await registerAndLogin(t, uniqueUser(`${tag}x${i}`));
      made.push(user.id);
    }
    await registerAndLogin(t, { ...uniqueUser('lit'), username: `${tag}a_b` });
    await registerAndLogin(t, { ...uniqueUser('lit'), username: `${tag}axb` });

    const first = await directory.list({ search: `${tag}X`, pageSize: 2 });
    const second = await directory.list({ search: `${tag}x`, pageSize: 2, page: 2 });
    expect(first.total).toBe(3);
    expect([...first.items, ...second.items].map((u) => u.id).sort()).toEqual([...made].sort());
    // `_` (like `%`) is a character to find, not a wildcard.
    const literal = await directory.list({ search: `${tag}a_b` });
    expect(literal.items.map((u) => u.username)).toEqual([`${tag}a_b`]);
    expect((await directory.list({ pageSize: 1000 })).pageSize).toBe(100);
  });

  it('changes a username and a role, seen at once by the token checks', async () => {
    const directory = t.app.get(UserDirectory);
    const session = await registerAndLogin(t);
    const other = await registerAndLogin(t);
    await me(session.access).expect(200);

    await directory.setRole(session.user.id, 'admin');
    const renamed = `renamed${Date.now().toString(36)}`;
    await directory.setUsername(session.user.id, renamed);

    const after = await me(session.access).expect(200);
    expect(after.body.data.user).toMatchObject({ role: 'admin', username: renamed });
    await expect(
      directory.setUsername(other.user.id, renamed.toUpperCase()),
    ).rejects.toBeInstanceOf(DuplicateUserError);
    expect(await directory.setRole('user_missing', 'admin')).toBeNull();
  });
});
