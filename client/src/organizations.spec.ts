import { USER, envelope, recording, tabs } from './auth-client.fakes.js';

const ok = (data?: object) =>
  envelope(200, { success: true, message: 'ok', ...(data ? { data } : {}) });
const routeOf = (r: { method: string; path: string; body: unknown }) =>
  `${r.method} ${r.path} ${JSON.stringify(r.body)}`;

describe('AuthClient: organizations', () => {
  it('sends each organization call to its route with exactly its body', async () => {
    const { fetch, seen } = recording(() => ok({}));
    const [{ auth }] = tabs(fetch, 1);
    const orgs = auth.organizations;

    await orgs.create({ name: 'Acme' });
    await orgs.list();
    await orgs.get('org_1');
    await orgs.update('org_1', { name: 'Acme Ltd' });
    await orgs.listMembers('org_1');
    await orgs.changeRole('org_1', 'user_2', 'admin');
    await orgs.removeMember('org_1', 'user_2');
    await orgs.invite('org_1', { email: 'b@example.com', role: 'member', applicationUrl: 'x' });
    await orgs.listInvitations('org_1');
    await orgs.withdrawInvitation('org_1', 'inv/1');
    await orgs.accept('tok');
    await orgs.delete('org_1');

    expect(seen.map(routeOf)).toEqual([
      'POST /organizations {"name":"Acme"}',
      'GET /organizations null',
      'GET /organizations/org_1 null',
      'PATCH /organizations/org_1 {"name":"Acme Ltd"}',
      'GET /organizations/org_1/members null',
      'PATCH /organizations/org_1/members/user_2 {"role":"admin"}',
      'DELETE /organizations/org_1/members/user_2 null',
      'POST /organizations/org_1/invitations {"email":"b@example.com","role":"member","applicationUrl":"x"}',
      'GET /organizations/org_1/invitations null',
      'DELETE /organizations/org_1/invitations/inv%2F1 null',
      'POST /invitations/accept {"token":"tok"}',
      'DELETE /organizations/org_1 null',
    ]);
  });

  it('switching renews the same session as a refresh does: new cookies, every tab told', async () => {
    const { fetch, seen } = recording(() => ok({ user: USER, expires_in: 900 }));
    const [first, second] = tabs(fetch);

    const result = await first.auth.organizations.switch('org_1');
    await first.auth.organizations.switch(null);

    expect(result.data.user).toEqual(USER);
    expect(seen.map(routeOf)).toEqual([
      'POST /auth/organization {"organization_id":"org_1"}',
      'POST /auth/organization {"organization_id":null}',
    ]);
    // Nothing started or ended: the same session, its cookies renewed.
    expect([first.started, second.started, first.ended, second.ended]).toEqual([[], [], [], []]);
    expect(first.browser.tab().lastRefresh()).toBeGreaterThan(0);
  });

  it('a switch refused for an expired access token refreshes, then switches', async () => {
    let fresh = false;
    const { fetch, seen } = recording((_method, path) => {
      if (path === '/auth/refresh') fresh = true;
      return fresh || path === '/auth/refresh'
        ? ok({ user: USER, expires_in: 900 })
        : envelope(401, { success: false, message: 'expired', error: 'INVALID_TOKEN' });
    });
    const [{ auth, ended }] = tabs(fetch, 1);

    await auth.organizations.switch('org_1');

    expect(seen.map((r) => `${r.method} ${r.path}`)).toEqual([
      'POST /auth/organization',
      'POST /auth/refresh',
      'POST /auth/organization',
    ]);
    expect(ended).toEqual([]);
  });

  it('a used invitation is the link refused, not the session: no refresh, no retry', async () => {
    const { fetch, seen } = recording(() =>
      envelope(401, {
        success: false,
        message: 'This invitation was used already',
        error: 'INVALID_TOKEN',
        details: [{ field: 'token', message: 'used', reason: 'used' }],
      }),
    );
    const [{ auth, ended }] = tabs(fetch, 1);

    const refused = await auth.organizations.accept('tok').catch((error: unknown) => error);

    expect(refused).toMatchObject({ code: 'INVALID_TOKEN', status: 401, linkRefusal: 'used' });
    expect(seen.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /invitations/accept']);
    expect(ended).toEqual([]);
  });
});
