import { Logger } from '@nestjs/common';
import { AppException } from '../common/errors/app.exception';
import { HooksConfig } from '../config/config.sections';
import { User } from '../users/user.entity';
import { BlockingHooks } from './blocking-hooks';
import { HookCaller } from './hook-caller';

const USER = Object.assign(new User(), {
  id: 'user_1',
  email: 'ann@example.com',
  username: 'ann',
  role: 'user',
  emailVerified: true,
  name: null,
  picture: null,
  createdAt: new Date(0),
  updatedAt: new Date(0),
  verifiedAt: new Date(0),
});

function hooksWith(config: Partial<HooksConfig>, answer: (type: string, data: unknown) => unknown) {
  const asked: Array<{ type: string; data: unknown }> = [];
  const caller = {
    call: (_url: string, type: string, data: unknown) => {
      asked.push({ type, data });
      return Promise.resolve().then(() => answer(type, data));
    },
  } as unknown as HookCaller;
  const full: HooksConfig = {
    beforeUserCreatedUrl: 'https://hooks.example/before',
    customAccessTokenUrl: 'https://hooks.example/claims',
    secret: Buffer.alloc(32),
    timeoutMs: 50,
    failure: 'closed',
    ...config,
  };
  return { hooks: new BlockingHooks(full, caller), asked };
}

const codeOf = (promise: Promise<unknown>) =>
  promise.then(
    () => 'resolved',
    (error: unknown) => (error instanceof AppException ? error.code : String(error)),
  );

describe('BlockingHooks', () => {
  it('touches no token without a custom_access_token hook', () => {
    const { hooks } = hooksWith({ customAccessTokenUrl: undefined }, () => ({}));
    expect(hooks.customizesAccessTokens).toBe(false);
    hooks.register({ beforeUserCreated: () => ({ decision: 'allow' }) });
    expect(hooks.customizesAccessTokens).toBe(false);
    hooks.register({ customAccessToken: () => ({ claims: {} }) });
    expect(hooks.customizesAccessTokens).toBe(true);
  });

  it('asks the modules first, then the URL, and stops at the first rejection', async () => {
    const { hooks, asked } = hooksWith({}, () => ({ decision: 'allow' }));
    const order: string[] = [];
    hooks.register({
      beforeUserCreated: () => (order.push('first'), { decision: 'allow' }),
    });
    hooks.register({
      beforeUserCreated: ({ user }) => {
        order.push('second');
        return Promise.resolve(
          user.username === 'eve'
            ? { decision: 'reject', message: ' No\n eves ' }
            : { decision: 'allow' },
        );
      },
    });
    await hooks.beforeUserCreated({ email: 'ann@example.com', username: 'ann' }, 'password');
    expect(order).toEqual(['first', 'second']);
    expect(asked).toEqual([
      {
        type: 'before_user_created',
        data: { user: { email: 'ann@example.com', username: 'ann' }, method: 'password' },
      },
    ]);
    const refused = hooks.beforeUserCreated(
      { email: 'e@example.com', username: 'eve' },
      'password',
    );
    await expect(refused).rejects.toMatchObject({
      code: 'REGISTRATION_REJECTED',
      message: 'No eves',
    });
    expect(asked).toHaveLength(1);
  });

  it('merges the claims in turn, each hook seeing those before it, never the reserved ones', async () => {
    const { hooks, asked } = hooksWith({}, () => ({
      claims: { b: 2, a: 'url', sub: 'x', ver: 9 },
    }));
    hooks.register({ customAccessToken: () => ({ claims: { a: 1, role: 'admin', org_id: 'o' } }) });
    const added = await hooks.accessTokenClaims(USER, { sub: 'user_1', role: 'user' });
    expect(added).toEqual({ a: 'url', b: 2 });
    expect(asked[0].data).toMatchObject({
      user: { id: 'user_1', email: 'ann@example.com', verified_at: new Date(0).toISOString() },
      claims: { sub: 'user_1', role: 'user', a: 1 },
    });
  });

  it.each([
    ['an answer of neither shape', () => ({ decision: 'maybe', claims: ['a'] })],
    ['a throw', () => Promise.reject(new Error('refused'))],
    ['no answer in time', () => new Promise(() => undefined)],
  ])('refuses on %s when closed, and skips the hook when open', async (_, answer) => {
    const warned = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const ask = (hooks: BlockingHooks) => ({
      // The URL's deadline is fetch's own (the e2e suite); a module's is the registry's.
      url: codeOf(hooks.beforeUserCreated({ email: 'a@b.io', username: 'abc' }, 'password')),
      module: hooks.accessTokenClaims(USER, {}),
    });
    const closed = hooksWith({ customAccessTokenUrl: undefined }, answer).hooks;
    closed.register({ customAccessToken: answer as never });
    const refused = ask(closed);
    expect(await codeOf(refused.module)).toBe('HOOK_UNAVAILABLE');
    if (_ !== 'no answer in time') expect(await refused.url).toBe('HOOK_UNAVAILABLE');

    const open = hooksWith({ failure: 'open', customAccessTokenUrl: undefined }, answer).hooks;
    open.register({ customAccessToken: answer as never });
    const skipped = ask(open);
    expect(await skipped.module).toEqual({});
    if (_ !== 'no answer in time') expect(await skipped.url).toBe('resolved');
    expect(warned).toHaveBeenCalledWith(expect.stringMatching(/hook failed .*HOOK_FAILURE=open/));
    warned.mockRestore();
  });
});
