import { USER, envelope, recording, tabs } from './auth-client.fakes.js';

const ok = (data?: object) =>
  envelope(200, { success: true, message: 'ok', ...(data ? { data } : {}) });

describe('AuthClient: the account of the signed-in user', () => {
  it('sends each account call to its route with exactly its body', async () => {
    const { fetch, seen } = recording(() => ok({ user: USER }));
    const [{ auth }] = tabs(fetch, 1);

    await auth.account.updateProfile({ name: 'Ann', picture: null });
    await auth.account.requestEmailChange({ password: 'p', newEmail: 'b@example.com' });
    await auth.account.confirmEmailChange({ token: 't' });
    await auth.account.undoEmailChange({ token: 'u' });
    await auth.account.getProfile();

    expect(seen).toEqual([
      { method: 'PATCH', path: '/users/me', body: { name: 'Ann', picture: null } },
      {
        method: 'POST',
        path: '/users/me/email',
        body: { password: 'p', newEmail: 'b@example.com' },
      },
      { method: 'POST', path: '/users/me/email/confirm', body: { token: 't' } },
      { method: 'POST', path: '/users/me/email/undo', body: { token: 'u' } },
      { method: 'GET', path: '/users/me', body: null },
    ]);
  });

  it('refreshes and retries a signed-in call refused for an expired access token', async () => {
    let fresh = false;
    const { fetch, seen } = recording((method, path) => {
      if (path === '/auth/refresh') {
        fresh = true;
        return ok({ user: USER });
      }
      return fresh
        ? ok({ user: USER })
        : envelope(401, { success: false, message: 'expired', error: 'INVALID_TOKEN' });
    });
    const [{ auth }] = tabs(fetch, 1);

    await auth.account.updateProfile({ name: 'Ann' });

    expect(seen.map((r) => `${r.method} ${r.path}`)).toEqual([
      'PATCH /users/me',
      'POST /auth/refresh',
      'PATCH /users/me',
    ]);
    expect(seen[2].body).toEqual({ name: 'Ann' });
  });

  it('a password change keeps every tab signed in with the new session, and tells them', async () => {
    const { fetch, seen } = recording(() => ok({ user: USER }));
    const [first, second] = tabs(fetch);

    await first.auth.password.change({ currentPassword: 'old-one', newPassword: 'new-one-9' });

    expect(seen[0]).toEqual({
      method: 'POST',
      path: '/users/me/password',
      body: { currentPassword: 'old-one', newPassword: 'new-one-9' },
    });
    expect([first.ended, second.ended]).toEqual([[], []]);
    expect(second.started).toEqual([{ source: 'other-tab', user: USER }]);
    expect(first.browser.tab().lastRefresh()).toBeGreaterThan(0);
  });

  it('deleting the account ends the session in every tab', async () => {
    const { fetch, seen } = recording(() => ok());
    const [first, second] = tabs(fetch);

    await first.auth.account.delete({ password: 'secret-1' });

    expect(seen[0]).toEqual({
      method: 'DELETE',
      path: '/users/me',
      body: { password: 'secret-1' },
    });
    expect([first.ended, second.ended]).toEqual([['account-deleted'], ['account-deleted']]);
  });

  it('a wrong current password is a 403 the session survives', async () => {
    const { fetch } = recording(() =>
      envelope(403, { success: false, message: 'wrong', error: 'INVALID_PASSWORD' }),
    );
    const [{ auth, ended }] = tabs(fetch, 1);

    await expect(auth.account.delete({ password: 'nope' })).rejects.toMatchObject({
      code: 'INVALID_PASSWORD',
      status: 403,
    });
    expect(ended).toEqual([]);
  });
});

describe('AuthClient: sessions and logout scopes', () => {
  it('lists sessions, ends one by id, ends the others', async () => {
    const { fetch, seen } = recording((method, path) =>
      path === '/users/me/sessions'
        ? ok({ sessions: [] })
        : path.startsWith('/users/me/sessions/')
          ? ok(method === 'DELETE' ? { current: false } : { ended: 2 })
          : ok(),
    );
    const [{ auth, ended }] = tabs(fetch, 1);

    await auth.account.listSessions();
    await expect(auth.account.endSession('a/b c')).resolves.toMatchObject({
      data: { current: false },
    });
    await expect(auth.account.endOtherSessions()).resolves.toMatchObject({ data: { ended: 2 } });

    expect(seen.map((r) => `${r.method} ${r.path}`)).toEqual([
      'GET /users/me/sessions',
      'DELETE /users/me/sessions/a%2Fb%20c',
      'POST /users/me/sessions/end-others',
    ]);
    expect(ended).toEqual([]);
  });

  it('ending the current session from the list is a logout of this browser', async () => {
    const { fetch } = recording(() => ok({ current: true }));
    const [first, second] = tabs(fetch);

    await first.auth.account.endSession('sid-1');

    expect([first.ended, second.ended]).toEqual([['logout'], ['logout']]);
  });

  it('logout sends its scope, and only "others" leaves this session alive', async () => {
    const { fetch, seen } = recording(() => ok());
    // Four browsers, so that one's logout is not heard by the others.
    const separate = Array.from({ length: 4 }, () => tabs(fetch, 1)[0]);

    await separate[0].auth.logout({ scope: 'others' });
    await separate[1].auth.logout({ scope: 'current' });
    await separate[2].auth.logout({ scope: 'all' });
    await separate[3].auth.logout();

    expect(seen.map((r) => r.body)).toEqual([
      { scope: 'others' },
      { scope: 'current' },
      { scope: 'all' },
      null,
    ]);
    expect(separate.map((tab) => tab.ended)).toEqual([[], ['logout'], ['logout'], ['logout']]);
  });
});

describe('AuthClient.admin', () => {
  it('sends each administration call to its route', async () => {
    const { fetch, seen } = recording(() => ok({ user: USER }));
    const [{ auth }] = tabs(fetch, 1);

    await auth.admin.listUsers({ search: 'a_b%', page: 2, pageSize: 50 });
    await auth.admin.listUsers();
    await auth.admin.listUsers({ search: 'ann', cursor: 'WzEsInVzZXJfMSJd', pageSize: 2 });
    await auth.admin.getUser('user_1');
    await auth.admin.setRole('user_1', 'admin');
    await auth.admin.disable('user_1');
    await auth.admin.enable('user_1');
    await auth.admin.endSessions('user_1');
    await auth.admin.sendPasswordReset('user_1', { applicationUrl: 'https://app.example/reset' });
    await auth.admin.deleteUser('user/1');

    expect(seen.map((r) => `${r.method} ${r.path} ${JSON.stringify(r.body)}`)).toEqual([
      'GET /admin/users?search=a_b%25&page=2&pageSize=50 null',
      'GET /admin/users null',
      'GET /admin/users?search=ann&cursor=WzEsInVzZXJfMSJd&pageSize=2 null',
      'GET /admin/users/user_1 null',
      'PATCH /admin/users/user_1/role {"role":"admin"}',
      'POST /admin/users/user_1/disable null',
      'POST /admin/users/user_1/enable null',
      'POST /admin/users/user_1/sessions/end null',
      'POST /admin/users/user_1/password-reset {"applicationUrl":"https://app.example/reset"}',
      'DELETE /admin/users/user%2F1 null',
    ]);
  });

  it('sends each webhook call to its route', async () => {
    const { fetch, seen } = recording(() => ok({}));
    const [{ auth }] = tabs(fetch, 1);

    await auth.admin.createWebhook({ url: 'https://hooks.example/a', events: ['*'] });
    await auth.admin.listWebhooks();
    await auth.admin.updateWebhook('wh_1', { enabled: false });
    await auth.admin.rotateWebhookSecret('wh_1');
    await auth.admin.testWebhook('wh_1');
    await auth.admin.listWebhookDeliveries('wh_1');
    await auth.admin.listWebhookDeliveries('wh_1', 'failed');
    await auth.admin.retryWebhookDelivery('wh_1', 'msg_1');
    await auth.admin.deleteWebhook('wh/1');

    expect(seen.map((r) => `${r.method} ${r.path} ${JSON.stringify(r.body)}`)).toEqual([
      'POST /admin/webhooks {"url":"https://hooks.example/a","events":["*"]}',
      'GET /admin/webhooks null',
      'PATCH /admin/webhooks/wh_1 {"enabled":false}',
      'POST /admin/webhooks/wh_1/rotate-secret null',
      'POST /admin/webhooks/wh_1/test null',
      'GET /admin/webhooks/wh_1/deliveries null',
      'GET /admin/webhooks/wh_1/deliveries?status=failed null',
      'POST /admin/webhooks/wh_1/deliveries/msg_1/retry null',
      'DELETE /admin/webhooks/wh%2F1 null',
    ]);
  });
});
