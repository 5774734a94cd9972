import {
  Browser,
  IdentityProviderProcess,
  startIdentityProvider,
} from './support/identity-provider';
import { ProcessPair, startProcessPair } from './support/process-pair';

const PUBLIC_URL = 'http://auth.example.test';
const BACK = 'http://localhost:5173/signed-in';
const CALLBACK = `${PUBLIC_URL}/api/v1/auth/providers/corp/callback`;

/**
 * A sign-in begun on one instance whose provider redirect lands on the other (two processes, one
 * MariaDB): the flow is in the database, the browser's cookie goes with it; once taken, the other
 * instance refuses the same callback.
 */
describe('identity providers across two processes', () => {
  let idp: IdentityProviderProcess | undefined;
  let pair: ProcessPair | undefined;

  beforeAll(async () => {
    idp = await startIdentityProvider([
      {
        client_id: 'auth-service',
        client_secret: 'corp-secret-0123456789',
        redirect_uris: [CALLBACK],
      },
    ]);
    pair = await startProcessPair({
      COOKIE_SECURE: 'false',
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
  }, 120_000);
  afterAll(async () => {
    await pair?.stop();
    await idp?.stop();
  });

  it('finishes on the other instance a sign-in begun on one, once', async () => {
    const { a, b } = pair!;
    const browser = new Browser();
    const started = await browser.request(
      `${a.url}/auth/providers/corp/start?redirect_to=${encodeURIComponent(BACK)}`,
    );
    expect(started.status).toBe(302);
    const flowCookie = browser.cookie(a.url, 'auth_flow')!;
    const back = await browser.signInAtProvider(
      started.headers.get('location')!,
      `inst-${process.pid}:inst${process.pid}@corp.example:1`,
      CALLBACK,
    );
    // The load balancer sends the provider's redirect to the other instance.
    const onB = back.replace(`${PUBLIC_URL}/api/v1`, b.url);
    browser.setCookie(b.url, 'auth_flow', flowCookie);
    const answer = await browser.request(onB);
    expect(answer.status).toBe(302);
    expect(answer.headers.get('location')).toBe(BACK);
    const access = browser.cookie(b.url, 'access_token')!;
    const me = await fetch(`${a.url}/users/me`, { headers: { Authorization: `Bearer ${access}` } });
    expect(me.status).toBe(200);

    const onA = back.replace(`${PUBLIC_URL}/api/v1`, a.url);
    browser.setCookie(a.url, 'auth_flow', flowCookie);
    const replayed = await browser.request(onA);
    expect(replayed.status).toBe(400);
  });
});
