import { registerUser, uniqueUser } from './support/auth-helpers';
import { BACKOFF_ENV, Botnet, SLOWED_DOWN, outcome, slowDown } from './support/login-backoff';
import { TestApp, startTestApp } from './support/test-app';

/** One instance without Redis: the per-account slow-down is counted in process. */
describe('per-account login slow-down, one instance without Redis', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(BACKOFF_ENV);
  });
  afterAll(() => t.close());

  it('slows one account down across addresses, caps the wait, and lets the owner in after it', async () => {
    const botnet = new Botnet();
    const owner = (await registerUser(t, uniqueUser('Slow'))).credentials;
    const unknown = `nobody-${owner.username}@example.com`;

    const [known, missing] = await slowDown([t], botnet, [owner.email, unknown], owner.password);

    expect(known).toEqual(SLOWED_DOWN);
    // An unknown email is slowed exactly like an existing account: same statuses, same waits.
    expect(missing).toEqual(SLOWED_DOWN);
    expect(botnet.addresses).toBeGreaterThanOrEqual(20);

    // After the wait, the right password works from yet another address...
    const right = { email: owner.email, password: owner.password };
    expect(outcome(await botnet.login(t, right))).toBe('200');
    // ...and the account starts afresh: the free failures again, then the first wait.
    const wrong = { email: owner.email, password: 'not-the-password' };
    const after: string[] = [];
    for (let i = 0; i < 4; i++) after.push(outcome(await botnet.login(t, wrong)));
    expect(after).toEqual(['401', '401', '401', '429 after 1']);
  });

  it('counts every spelling of an email as the same account', async () => {
    const botnet = new Botnet();
    const { email } = (await registerUser(t, uniqueUser('Spelt'))).credentials;
    const spellings = [email, email.toUpperCase(), `  ${email} `, email.toUpperCase()];
    const seen: string[] = [];
    for (const spelling of spellings) {
      seen.push(outcome(await botnet.login(t, { email: spelling, password: 'not-the-password' })));
    }
    expect(seen).toEqual(['401', '401', '401', '429 after 1']);
  });
});
