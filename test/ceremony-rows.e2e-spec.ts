import { freePort } from './support/free-port';
import {
  Browser,
  IdentityProviderProcess,
  startIdentityProvider,
} from './support/identity-provider';
import { PasskeyAuthenticator, RequestOptions } from './support/passkey-authenticator';
import { registerAndLogin, uniqueUser } from './support/auth-helpers';
import { APP_ORIGIN, TestApp, startTestApp } from './support/test-app';

/** Of each kind: 10,000 starts in all, each from its own address. */
const STARTS = 5_000;
/** Requests in flight at once: a crowd of clients, not one after the other. */
const IN_FLIGHT = 16;
const BACK = `${APP_ORIGIN}/signed-in`;
/** Every table that has held a ceremony's state, whichever of them the schema has. */
const CEREMONY_TABLES = ['webauthn_challenges', 'federation_states', 'finished_federation_flows'];

/**
 * Issue 32: the ceremonies anyone may begin without an account, `POST /auth/passkey/options` and
 * a provider's start, each wrote a row, bounded only by the general rate limit per address; from
 * many addresses, without end. Now a start writes nothing (the challenge and the `state` carry
 * the ceremony, signed or sealed) and a row comes only with a finished one. 10,000 starts, half
 * of each kind, from 10,000 addresses through a trusted proxy, under the real per-address limit.
 */
describe('unauthenticated ceremonies and the database', () => {
  let t: TestApp;
  let idp: IdentityProviderProcess;
  let base: string;

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    idp = await startIdentityProvider([
      {
        client_id: 'auth-service',
        client_secret: 'corp-secret-0123456789',
        redirect_uris: [`${base}/api/v1/auth/providers/corp/callback`],
      },
    ]);
    t = await startTestApp({
      PUBLIC_URL: base,
      WEBAUTHN_RP_ID: 'localhost',
      COOKIE_SECURE: 'false',
      TRUST_PROXY: 'loopback',
      THROTTLE_LIMIT: '50',
      AUTH_PROVIDERS: JSON.stringify([
        {
          id: 'corp',
          type: 'oidc',
          name: 'Corp ID',
          issuer: idp.issuer,
          client_id: 'auth-service',
          client_secret: 'corp-secret-0123456789',
        },
      ]),
    });
    await t.app.listen(port, '127.0.0.1');
  });
  afterAll(async () => {
    await t?.close();
    await idp?.stop();
  });

  /** A distinct client address for request `i`, as the proxy in front names it. */
  const address = (i: number) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;

  /** `STARTS` requests, `IN_FLIGHT` at a time; how many got each status. */
  async function flood(send: (i: number) => Promise<Response>): Promise<Record<number, number>> {
    const statuses: Record<number, number> = {};
    let next = 0;
    const worker = async () => {
      while (next < STARTS) {
        const answer = await send(next++);
        await answer.arrayBuffer();
        statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
      }
    };
    await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
    return statuses;
  }

  async function ceremonyRows(): Promise<Record<string, number>> {
    const runner = t.dataSource.createQueryRunner();
    try {
      const rows: Record<string, number> = {};
      for (const table of CEREMONY_TABLES) {
        if (!(await runner.hasTable(table))) continue;
        // On the runner that holds this unit of work: another call would wait behind it.
        const [{ count }] = (await runner.query(
          `SELECT COUNT(*) AS count FROM ${table}`,
        )) as Array<{
          count: number | string;
        }>;
        rows[table] = Number(count);
      }
      return rows;
    } finally {
      await runner.release();
    }
  }
  const total = (rows: Record<string, number>) =>
    Object.values(rows).reduce((sum, count) => sum + count, 0);

  it('writes nothing for 5,000 passkey sign-ins and 5,000 provider starts begun, each from its own address', async () => {
    const passkeyStarts = await flood((i) =>
      fetch(`${base}/api/v1/auth/passkey/options`, {
        method: 'POST',
        headers: { 'X-Forwarded-For': address(i), Origin: APP_ORIGIN },
      }),
    );
    const providerStarts = await flood((i) =>
      fetch(`${base}/api/v1/auth/providers/corp/start?redirect_to=${encodeURIComponent(BACK)}`, {
        redirect: 'manual',
        headers: { 'X-Forwarded-For': address(STARTS + i) },
      }),
    );
    // Every one was let through by the rate limit (one request per address), and began.
    expect({ passkeyStarts, providerStarts }).toEqual({
      passkeyStarts: { 200: STARTS },
      providerStarts: { 302: STARTS },
    });
    expect(total(await ceremonyRows())).toBe(0);
  }, 300_000);

  it('writes a row for a finished ceremony, which is then good once', async () => {
    const owner = await registerAndLogin(t, uniqueUser('finished'));
    const bearer = { Authorization: `Bearer ${owner.access}` };
    const authenticator = new PasskeyAuthenticator(APP_ORIGIN);
    const created = await t.http().post('/api/v1/users/me/passkeys/options').set(bearer);
    await t
      .http()
      .post('/api/v1/users/me/passkeys')
      .set(bearer)
      .send({ response: authenticator.create(created.body.data.options) })
      .expect(201);
    const begun = await t.http().post('/api/v1/auth/passkey/options').expect(200);
    const response = authenticator.get(begun.body.data.options as RequestOptions);
    const verify = () =>
      t.http().post('/api/v1/auth/passkey/verify').set('Origin', APP_ORIGIN).send({ response });
    expect((await verify()).status).toBe(200);
    expect((await verify()).body.error).toBe('INVALID_PASSKEY');

    const browser = new Browser();
    const started = await browser.request(
      `${base}/api/v1/auth/providers/corp/start?redirect_to=${encodeURIComponent(BACK)}`,
    );
    const callback = await browser.signInAtProvider(
      started.headers.get('location')!,
      `rows-${Date.now()}:rows${process.pid}@corp.example:1`,
      `${base}/api/v1/auth/providers/corp/callback`,
    );
    expect((await browser.request(callback)).headers.get('location')).toBe(BACK);
    expect((await browser.request(callback)).status).toBe(400);

    // The registration's, the sign-in's, and the provider's round trip: one row each.
    expect(await ceremonyRows()).toEqual({ webauthn_challenges: 2, finished_federation_flows: 1 });
  });
});
