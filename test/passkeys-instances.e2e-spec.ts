import { PasskeyAuthenticator } from './support/passkey-authenticator';
import { ProcessPair, startProcessPair } from './support/process-pair';
import { ServiceProcess } from './support/service-process';

const PASSWORD = 'correct horse';
const ORIGIN = 'http://localhost:5173';

/**
 * Passkey ceremonies across two instances (two processes, one MariaDB, one Redis): each begun on
 * one and finished on the other, and a challenge used on one refused by the other.
 */
describe('passkeys across two processes', () => {
  let pair: ProcessPair | undefined;
  let a: ServiceProcess;
  let b: ServiceProcess;

  beforeAll(async () => {
    pair = await startProcessPair({ WEBAUTHN_RP_ID: 'localhost', WEBAUTHN_ORIGINS: ORIGIN });
    ({ a, b } = pair);
  }, 120_000);
  afterAll(() => pair?.stop());

  const call = async (
    t: ServiceProcess,
    path: string,
    body: object,
    access?: string,
  ): Promise<{ status: number; body: Record<string, unknown> }> => {
    const response = await fetch(`${t.url}${path}`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        'X-Token-Delivery': 'body',
        ...(access ? { Authorization: `Bearer ${access}` } : {}),
      },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  const options = (answer: { body: Record<string, unknown> }) =>
    (answer.body.data as { options: never }).options;
  const outcome = (answer: { status: number; body: Record<string, unknown> }) => ({
    status: answer.status,
    error: answer.body.error,
  });

  it('registers, signs in and answers a second step begun on the other instance, each challenge once', async () => {
    const name = `pkinst${process.pid}`;
    const email = `${name}@example.com`;
    expect(
      (await call(a, '/auth/register', { email, password: PASSWORD, username: name })).status,
    ).toBe(201);
    const access = (await call(a, '/auth/login', { email, password: PASSWORD })).body
      .access_token as string;
    const authenticator = new PasskeyAuthenticator(ORIGIN);

    const creation = await call(a, '/users/me/passkeys/options', {}, access);
    const response = authenticator.create(options(creation));
    expect((await call(b, '/users/me/passkeys', { response }, access)).status).toBe(201);
    expect(outcome(await call(a, '/users/me/passkeys', { response }, access))).toEqual({
      status: 401,
      error: 'INVALID_PASSKEY',
    });

    const request = await call(b, '/auth/passkey/options', {});
    const assertion = authenticator.get(options(request));
    const signedIn = await call(a, '/auth/passkey/verify', { response: assertion });
    expect(signedIn.status).toBe(200);
    expect(signedIn.body.access_token).toEqual(expect.any(String));
    expect(outcome(await call(b, '/auth/passkey/verify', { response: assertion }))).toEqual({
      status: 401,
      error: 'INVALID_PASSKEY',
    });

    const step = (await call(a, '/auth/login', { email, password: PASSWORD })).body.data as {
      challenge: string;
      methods: string[];
    };
    expect(step.methods).toEqual(['passkey']);
    const second = await call(b, '/auth/mfa/passkey/options', { challenge: step.challenge });
    const verified = await call(a, '/auth/mfa/verify', {
      challenge: step.challenge,
      passkey: authenticator.get(options(second)),
    });
    expect(verified.status).toBe(200);
    expect(verified.body.access_token).toEqual(expect.any(String));
  });
});
