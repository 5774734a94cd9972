import { Authenticator } from './support/authenticator';
import { ProcessPair, startProcessPair } from './support/process-pair';
import { ServiceProcess, postJson } from './support/service-process';

const PASSWORD = 'correct horse';

/**
 * A second factor across two instances (two processes, one MariaDB, one Redis): a code accepted
 * by one is refused by the other, and a login's challenge from one is completed on the other.
 */
describe('the second factor across two processes', () => {
  let pair: ProcessPair | undefined;
  let a: ServiceProcess;
  let b: ServiceProcess;

  beforeAll(async () => {
    pair = await startProcessPair();
    ({ a, b } = pair);
  }, 120_000);
  afterAll(() => pair?.stop());

  const data = (answer: { body: Record<string, unknown> }) =>
    answer.body.data as Record<string, unknown>;

  it('refuses on one instance a code the other accepted, and completes a login begun on the other', async () => {
    const name = `twoinst${process.pid}`;
    const email = `${name}@example.com`;
    expect(
      (await postJson(a, '/auth/register', { email, password: PASSWORD, username: name })).status,
    ).toBe(201);
    const access = (await postJson(a, '/auth/login', { email, password: PASSWORD })).body
      .access_token as string;
    const begun = await postJson(a, '/users/me/mfa/totp', {}, access);
    const app = new Authenticator(data(begun).secret as string);
    expect(
      (await postJson(b, '/users/me/mfa/totp/confirm', { code: await app.code() }, access)).status,
    ).toBe(200);

    const challenge = data(
      await postJson(a, '/auth/login', { email, password: PASSWORD }),
    ).challenge;
    const code = await app.code();
    const first = await postJson(b, '/auth/mfa/verify', { challenge, code });
    expect(first.status).toBe(200);
    expect(first.body.access_token).toEqual(expect.any(String));
    // The same code on the other instance, with a fresh challenge: a replay.
    const again = data(await postJson(b, '/auth/login', { email, password: PASSWORD })).challenge;
    const replay = await postJson(a, '/auth/mfa/verify', { challenge: again, code });
    expect({ status: replay.status, error: replay.body.error }).toEqual({
      status: 401,
      error: 'INVALID_MFA_CODE',
    });
    // And the challenge used on one instance is used on the other.
    const used = await postJson(a, '/auth/mfa/verify', { challenge, code: await app.code() });
    expect({ status: used.status, error: used.body.error }).toEqual({
      status: 401,
      error: 'INVALID_TOKEN',
    });
  });
});
