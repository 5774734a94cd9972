import { CanActivate, ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { IAuthGuard } from '@nestjs/passport';
import { IS_PUBLIC_KEY } from '../decorators/public.decorator';
import { AuthenticationGuard, ROUTE_TOKEN, RouteToken } from './authentication.guard';
import { OptionalAccessGuard } from './optional-access.guard';
import { RolesGuard } from './roles.guard';
import { SecondFactorGuard } from './second-factor.guard';

type Name = RouteToken | 'roles' | 'second-factor';

/** A guard built over recording stand-ins, on a route whose decorators set `metadata`. */
function guardFor(metadata: Record<string, unknown>, refuse?: Name) {
  const called: Name[] = [];
  const stub = (name: Name): CanActivate => ({
    canActivate: () => {
      called.push(name);
      if (name === refuse) throw new Error(`${name} refused`);
      return Promise.resolve(true);
    },
  });
  const reflector = { getAllAndOverride: (key: string) => metadata[key] } as unknown as Reflector;
  const guard = new AuthenticationGuard(
    reflector,
    stub('access') as IAuthGuard,
    stub('refresh') as IAuthGuard,
    stub('access-or-refresh') as IAuthGuard,
    stub('optional-access') as OptionalAccessGuard,
    stub('roles') as RolesGuard,
    stub('second-factor') as SecondFactorGuard,
  );
  const context = {
    getHandler: () => function handler() {},
    getClass: () => class Owner {},
  } as unknown as ExecutionContext;
  return { called, activate: () => guard.canActivate(context) };
}

describe('AuthenticationGuard', () => {
  it('asks nothing of a @Public() route', async () => {
    const { called, activate } = guardFor({ [IS_PUBLIC_KEY]: true });
    await expect(activate()).resolves.toBe(true);
    expect(called).toEqual([]);
  });

  it('takes the access token, then the roles, then the second factor, by default', async () => {
    const { called, activate } = guardFor({});
    await expect(activate()).resolves.toBe(true);
    expect(called).toEqual(['access', 'roles', 'second-factor']);
  });

  it('stops at the token it refuses', async () => {
    const { called, activate } = guardFor({}, 'access');
    await expect(activate()).rejects.toThrow('access refused');
    expect(called).toEqual(['access']);
  });

  it('reads the token of a public route that takes one if it came (@OptionalAccess())', async () => {
    const { called, activate } = guardFor({
      [IS_PUBLIC_KEY]: true,
      [ROUTE_TOKEN]: 'optional-access',
    });
    await expect(activate()).resolves.toBe(true);
    expect(called).toEqual(['optional-access']);
  });

  it.each<RouteToken>(['access', 'refresh', 'access-or-refresh', 'optional-access'])(
    'hands a route that takes %s to that guard alone',
    async (token) => {
      const { called, activate } = guardFor({ [ROUTE_TOKEN]: token, [IS_PUBLIC_KEY]: false });
      await expect(activate()).resolves.toBe(true);
      expect(called).toEqual([token]);
    },
  );
});
