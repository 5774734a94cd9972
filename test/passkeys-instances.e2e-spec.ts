import { PasskeyAuthenticator } from './support/passkey-authenticator';
import { ProcessPair, startProcessPair } from './support/process-pair';
import { ServiceProcess, postJson } from './support/service-process';

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
      (await postJson(a, '/auth/register', { email, password: PASSWORD, username: name })).status,
    ).toBe(201);
    const access = (await postJson(a, '/auth/login', { email, password: PASSWORD })).body
      .access_token as string;
    const authenticator = new PasskeyAuthenticator(ORIGIN);

    const creation = await postJson(a, '/users/me/passkeys/options', {}, access);
    const response = authenticator.create(options(creation));
    expect((await postJson(b, '/users/me/passkeys', { response }, access)).status).toBe(201);
    expect(outcome(await postJson(a, '/users/me/passkeys', { response }, access))).toEqual({
      status: 401,
      error: 'INVALID_PASSKEY',
    });

    const request = await postJson(b, '/auth/passkey/options', {});
    const assertion = authenticator.get(options(request));
    const signedIn = await postJson(a, '/auth/passkey/verify', { response: assertion });
    expect(signedIn.status).toBe(200);
    expect(signedIn.body.access_token).toEqual(expect.any(String));
    expect(outcome(await postJson(b, '/auth/passkey/verify', { response: assertion }))).toEqual({
      status: 401,
      error: 'INVALID_PASSKEY',
    });

    const step = (await postJson(a, '/auth/login', { email, password: PASSWORD })).body.data as {
      challenge: string;
      methods: string[];
    };
    expect(step.methods).toEqual(['passkey']);
    const second = await postJson(b, '/auth/mfa/passkey/options', { challenge: step.challenge });
    const verified = await postJson(a, '/auth/mfa/verify', {
      challenge: step.challenge,
      passkey: authenticator.get(options(second)),
    });
    expect(verified.status).toBe(200);
    expect(verified.body.access_token).toEqual(expect.any(String));
  });
});
