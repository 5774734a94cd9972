import { ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { Role, User } from '../../users/user.entity';
import { RolesGuard } from './roles.guard';

function context(principal: unknown, roles: Role[] | undefined): [RolesGuard, ExecutionContext] {
  const reflector = { getAllAndOverride: () => roles } as unknown as Reflector;
  const ctx = {
    getHandler: () => undefined,
    getClass: () => undefined,
    switchToHttp: () => ({ getRequest: () => ({ user: principal }) }),
  } as unknown as ExecutionContext;
  return [new RolesGuard(reflector), ctx];
}

function user(role: string): User {
  return Object.assign(new User(), { id: 'user_1', role });
}

describe('RolesGuard', () => {
  it('lets any signed-in user through a route that names no role', () => {
    const [guard, ctx] = context(user('user'), []);
    expect(guard.canActivate(ctx)).toBe(true);
  });

  it('lets a user with one of the named roles through', () => {
    const [guard, ctx] = context(user('admin'), ['admin']);
    expect(guard.canActivate(ctx)).toBe(true);
  });

  it.each([
    ['another role', user('user')],
    ['no user (refresh claims)', { sub: 'user_1', typ: 'refresh' }],
  ])('refuses %s with 403 FORBIDDEN', (_case, principal) => {
    const [guard, ctx] = context(principal, ['admin']);
    expect(() => guard.canActivate(ctx)).toThrow(
      expect.objectContaining({ code: 'FORBIDDEN', status: 403 }),
    );
  });
});
