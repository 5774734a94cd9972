import { Strategy } from 'passport';

export type Outcome = { user: unknown } | { failure: unknown } | { error: unknown };

/**
 * Runs a passport strategy on one request as passport does: a copy with the outcome hooks
 * attached. Passport's types say Express; the strategies read only what HttpRequest has.
 */
export function runStrategy(strategy: Strategy, req: object): Promise<Outcome> {
  return new Promise((resolve) => {
    const run = Object.create(strategy) as {
      success(user: unknown): void;
      fail(info: unknown): void;
      error(error: unknown): void;
      authenticate(req: object): void;
    };
    run.success = (user) => resolve({ user });
    run.fail = (failure) => resolve({ failure });
    run.error = (error) => resolve({ error });
    run.authenticate(req);
  });
}
