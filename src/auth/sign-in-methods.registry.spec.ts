import { AppException } from '../common/errors/app.exception';
import { ClientInfo } from '../common/http/request-context';
import { User } from '../users/user.entity';
import { SignInMethodRegistry, StepPurpose, WayIn } from './sign-in-methods.registry';
import { showsSecondFactor } from './second-factor-policy';

/** The service's ways in as their modules register them (amr and order only). */
function registry(): SignInMethodRegistry {
  const registry = new SignInMethodRegistry();
  const way = (id: string, order: number, amr: string[], more: Partial<WayIn> = {}) =>
    registry.register({ id, order, amr, listed: true, enabled: () => true, ...more });
  way('identity_provider', 40, ['fed']);
  way('password', 10, ['pwd']);
  way('passkey', 20, ['hwk', 'swk'], { multiFactor: true });
  way('email_code', 30, ['otp']);
  way('totp', 50, ['otp'], { listed: false });
  return registry;
}

describe('SignInMethodRegistry', () => {
  const ways = registry();

  it('gives each way in its own amr, a variant its value', () => {
    expect(ways.amrOf({ method: 'password' })).toEqual(['pwd']);
    expect(ways.amrOf({ method: 'email_code' })).toEqual(['otp']);
    expect(ways.amrOf({ method: 'identity_provider' })).toEqual(['fed']);
    expect(ways.amrOf({ method: 'passkey', amr: 'hwk' })).toEqual(['hwk']);
    expect(ways.amrOf({ method: 'passkey', amr: 'swk' })).toEqual(['swk']);
    expect(() => ways.amrOf({ method: 'passkey' })).toThrow();
    expect(() => ways.amrOf({ method: 'password', amr: 'hwk' })).toThrow();
    expect(() => ways.amrOf({ method: 'unknown' })).toThrow();
  });

  // The values every login's second step gave before they were computed (the e2e suites pin them).
  it.each([
    [['pwd'], { method: 'totp' }, ['pwd', 'otp']],
    [['otp'], { method: 'totp' }, ['otp', 'mfa']],
    [['fed'], { method: 'totp' }, ['fed', 'otp']],
    [['pwd'], { method: 'passkey', amr: 'hwk' }, ['pwd', 'hwk', 'mfa']],
    [['otp'], { method: 'passkey', amr: 'swk' }, ['otp', 'swk', 'mfa']],
    [['fed'], { method: 'passkey', amr: 'hwk' }, ['fed', 'hwk', 'mfa']],
    // A step-up with the app's code after a passkey sign-in, and after a token from before amr.
    [['swk'], { method: 'totp' }, ['swk', 'otp', 'mfa']],
    [undefined, { method: 'totp' }, ['otp']],
    [[], { method: 'totp' }, ['otp']],
  ])('%j then %j says %j', (first, second, amr) => {
    expect(ways.combine(first, second)).toEqual(amr);
  });

  it('never says a second step with otp alone, which is a mailed code', () => {
    for (const first of [['pwd'], ['fed'], ['otp'], ['hwk']]) {
      expect(showsSecondFactor(ways.combine(first, { method: 'totp' }))).toBe(true);
    }
  });

  it('lists the ways in switched on and listed, in their order', () => {
    expect(ways.listed()).toEqual(['password', 'passkey', 'email_code', 'identity_provider']);
    const off = new SignInMethodRegistry();
    off.register({ id: 'b', order: 2, amr: ['x'], listed: true, enabled: () => false });
    off.register({ id: 'a', order: 1, amr: ['y'], listed: true, enabled: () => true });
    expect(off.listed()).toEqual(['a']);
  });

  // The step-ups' values before they were computed (test/reauthentication pins them).
  it.each([
    [['pwd', 'hwk', 'mfa'], { method: 'password' }, ['pwd']],
    [['pwd'], { method: 'passkey', amr: 'swk' }, ['swk']],
    [['fed'], { method: 'email_code' }, ['otp']],
    [['fed'], { method: 'identity_provider' }, ['fed']],
    [['pwd', 'hwk', 'mfa'], { method: 'totp' }, ['pwd', 'otp']],
    [['otp'], { method: 'totp' }, ['otp', 'mfa']],
    [['hwk'], { method: 'totp' }, ['hwk', 'otp', 'mfa']],
    [undefined, { method: 'totp' }, ['otp']],
  ])('a session of %j stepped up by %j says %j', (session, step, amr) => {
    expect(ways.stepUpAmr(session, step)).toEqual(amr);
  });

  it('hands an answer to the way in that registered its field, for that purpose only', async () => {
    const checked: string[] = [];
    const answering = new SignInMethodRegistry();
    const way = (id: string, order: number, fields: string[], purposes: StepPurpose[]) =>
      answering.register({
        id,
        order,
        amr: [id],
        listed: true,
        enabled: () => true,
        answers: {
          fields,
          purposes,
          check: (_user, answer) => {
            checked.push(`${id}:${JSON.stringify(answer)}`);
            return Promise.resolve({ method: id });
          },
        },
      });
    way('app', 2, ['code', 'recovery_code'], ['second_factor', 'reauthentication']);
    way('mailed', 1, ['email_code'], ['reauthentication']);
    const user = {} as User;
    const client = {} as ClientInfo;
    const body = { challenge: 'c', code: undefined, recovery_code: 'r' };
    expect(await answering.check(user, body, 'second_factor', client)).toEqual({ method: 'app' });
    expect(checked).toEqual(['app:{"challenge":"c","recovery_code":"r"}']);
    await expect(
      answering.check(user, { email_code: '123456' }, 'second_factor', client),
    ).rejects.toThrow(/No sign-in method/);
    expect(
      await answering.check(user, { email_code: '123456' }, 'reauthentication', client),
    ).toEqual({ method: 'mailed' });
  });

  it('refuses a way in registered twice', () => {
    expect(() =>
      ways.register({ id: 'password', order: 1, amr: ['pwd'], listed: true, enabled: () => true }),
    ).toThrow(/twice/);
  });

  it('asks every holder in order, and refuses removing the last way in held', async () => {
    const asked: string[] = [];
    const held = new SignInMethodRegistry();
    const holder = (id: string, order: number, count: number) =>
      held.register({
        id,
        order,
        amr: [id],
        listed: true,
        enabled: () => true,
        heldBy: () => {
          asked.push(id);
          return Promise.resolve(count);
        },
      });
    holder('later', 2, 1);
    holder('first', 1, 0);
    held.register({ id: 'anyone', order: 0, amr: ['z'], listed: true, enabled: () => true });
    const manager = {} as never;
    const holdings = await held.lockHeld(manager, 'u1');
    expect(asked).toEqual(['first', 'later']);
    expect(() => holdings.refuseRemoving()).toThrow(AppException);
    // Another way in held: the one removed was not the last.
    holder('more', 3, 1);
    expect((await held.lockHeld(manager, 'u1')).refuseRemoving()).toBeUndefined();
  });
});
