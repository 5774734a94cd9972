import { createAuthClient } from './auth-client.js';
import { BASE, FakeBrowser, USER, envelope, recording, tabs } from './auth-client.fakes.js';
import type { AuthClientPlugin, SessionEngine } from './plugin.js';
import type { SignedInResult } from './types.js';

/** A way in the SDK does not ship, as an app would add one: a signed header, say. */
class SignedHeaderClient {
  constructor(private readonly engine: SessionEngine) {}

  signIn(signature: string): Promise<SignedInResult> {
    return this.engine.signIn<SignedInResult>('/auth/signed-header', { signature });
  }
}
const signedHeader = (): AuthClientPlugin<'signedHeader', SignedHeaderClient> => ({
  id: 'signedHeader',
  create: (engine) => new SignedHeaderClient(engine),
});

describe('createAuthClient: the parts of the SDK as plugins', () => {
  it('gives each plugin its name on the client, and a sign-in through it starts the session everywhere', async () => {
    const { fetch, seen } = recording(() =>
      envelope(200, { success: true, message: 'ok', data: { user: USER, expires_in: 900 } }),
    );
    const browser = new FakeBrowser();
    const make = () =>
      createAuthClient({
        baseUrl: BASE,
        fetch,
        coordination: browser.tab(),
        plugins: [signedHeader()],
      });
    const [here, there] = [make(), make()];
    const started: string[] = [];
    here.onSessionStarted(({ source }) => started.push(`here ${source}`));
    there.onSessionStarted(({ source }) => started.push(`there ${source}`));

    await here.signedHeader.signIn('sig');

    expect(seen).toEqual([
      { method: 'POST', path: '/auth/signed-header', body: { signature: 'sig' } },
    ]);
    expect(started).toEqual(['there other-tab', 'here this-tab']);
  });

  it('has none of a part it was not given', () => {
    const [{ auth }] = tabs(() => Promise.resolve(new Response()), 1);
    const bare = createAuthClient({ baseUrl: BASE, coordination: new FakeBrowser().tab() });
    expect('passkeys' in auth).toBe(true);
    expect('passkeys' in bare).toBe(false);
  });

  it('refuses two parts of one name, or a part named as one of its own methods', () => {
    const options = { baseUrl: BASE, coordination: new FakeBrowser().tab() };
    expect(() =>
      createAuthClient({ ...options, plugins: [signedHeader(), signedHeader()] }),
    ).toThrow('The client has a part called signedHeader already');
    const status: AuthClientPlugin<'status', object> = { id: 'status', create: () => ({}) };
    expect(() => createAuthClient({ ...options, plugins: [status] })).toThrow(
      'The client has a part called status already',
    );
  });
});
