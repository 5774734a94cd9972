import { ConsoleLogger, Controller, Get, RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { DiscoveryModule, DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { IS_PUBLIC_KEY, Public } from '../src/auth/decorators/public.decorator';
import { ok } from '../src/common/http/envelope';
import { RequestUser } from '../src/common/http/request-user.decorator';
import { API_PREFIX } from '../src/platform/api-prefix';
import { UNPREFIXED_ROUTES } from '../src/app.factory';
import { User } from '../src/users/user.entity';
import { expectError, registerAndLogin } from './support/auth-helpers';
import { TestApp, startTestApp } from './support/test-app';

/** What a team adds next to the service: one route that says nothing, one that says `@Public()`. */
@Controller('team')
class TeamController {
  @Get('forgot-to-say')
  mine(@RequestUser() user: User) {
    return ok('Yours', { id: user.id });
  }

  @Get('open')
  @Public()
  open() {
    return ok('Anyone');
  }
}

interface Route {
  method: string;
  url: string;
  handler: string;
  isPublic: boolean;
}

/**
 * Authentication is on for every route (AuthModule's APP_GUARD): a route anyone may call says
 * `@Public()`, and every other one refuses a request without credentials with 401.
 */
describe('the global guard', () => {
  let t: TestApp;
  /** Every route Nest mapped, as it logs them ("Mapped {/api/v1/auth/login, POST} route"). */
  const mapped: Array<{ method: string; url: string }> = [];
  let routes: Route[];

  beforeAll(async () => {
    t = await startTestApp(
      {},
      {
        logger: new RouteRecorder(mapped),
        imports: [DiscoveryModule],
        controllers: [TeamController],
      },
    );
    routes = discoverRoutes(t);
  });
  afterAll(() => t.close());

  it('finds every route Nest mapped, each from its handler', () => {
    const found = new Set(routes.map(({ method, url }) => `${method} ${url}`));
    expect(new Set(mapped.map(({ method, url }) => `${method} ${url}`))).toEqual(found);
    // The service's own, not only the team's.
    expect(routes.length).toBeGreaterThan(60);
  });

  it('answers 401 INVALID_TOKEN without credentials on every route not marked @Public()', async () => {
    const guarded = routes.filter((route) => !route.isPublic);
    expect(guarded.length).toBeGreaterThan(30);
    const answers: Array<{ route: string; status: number; error: unknown }> = [];
    for (const route of guarded) {
      const response = await t.http()[verb(route.method)](sample(route.url));
      answers.push({
        route: `${route.method} ${route.url} (${route.handler})`,
        status: response.status,
        error: (response.body as { error?: unknown } | undefined)?.error,
      });
      if (response.status === 401) expectError(response, 401, 'INVALID_TOKEN');
    }
    // Listed whole, so a failure names every route that answered something else.
    expect(answers.filter((answer) => answer.status !== 401)).toEqual([]);
  });

  it('guards a new route that says nothing, and lets anyone through one marked @Public()', async () => {
    const refused = await t.http().get('/api/v1/team/forgot-to-say').expect(401);
    expectError(refused, 401, 'INVALID_TOKEN');
    expect(refused.headers['www-authenticate']).toBe('Bearer');

    const open = await t.http().get('/api/v1/team/open').expect(200);
    expect(open.body).toEqual({ success: true, message: 'Anyone' });
  });

  it('lets a signed-in user through the route that says nothing', async () => {
    const { user, access } = await registerAndLogin(t);
    const response = await t
      .http()
      .get('/api/v1/team/forgot-to-say')
      .set('Authorization', `Bearer ${access}`)
      .expect(200);
    expect(response.body.data).toEqual({ id: user.id });
  });
});

/** Every handler of every controller, at the path Nest maps it to, and whether it is public. */
function discoverRoutes(t: TestApp): Route[] {
  const reflector = t.app.get(Reflector);
  const scanner = new MetadataScanner();
  const routes: Route[] = [];
  for (const wrapper of t.app.get(DiscoveryService).getControllers()) {
    const controller = wrapper.metatype as new (...args: never[]) => object;
    const prototype = controller.prototype as Record<string, (...args: never[]) => unknown>;
    for (const name of scanner.getAllMethodNames(prototype)) {
      const handler = prototype[name];
      const paths = Reflect.getMetadata(PATH_METADATA, handler) as string | string[] | undefined;
      if (paths === undefined) continue;
      const method = RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as number];
      const isPublic =
        reflector.getAllAndOverride<boolean | undefined>(IS_PUBLIC_KEY, [handler, controller]) ===
        true;
      const bases = [Reflect.getMetadata(PATH_METADATA, controller) as string | string[]].flat();
      for (const base of bases) {
        for (const path of [paths].flat()) {
          const bare = `/${[base, path].filter((part) => part !== '' && part !== '/').join('/')}`
            .replace(/\/+/g, '/')
            .replace(/(.)\/$/, '$1');
          // Under the API prefix, unless the route is one the prefix leaves alone.
          const url = UNPREFIXED_ROUTES.includes(bare.slice(1))
            ? bare
            : `/${API_PREFIX}${bare === '/' ? '' : bare}`;
          routes.push({ method, url, handler: `${controller.name}.${name}`, isPublic });
        }
      }
    }
  }
  return routes;
}

function verb(method: string): 'get' | 'post' | 'put' | 'patch' | 'delete' {
  const lower = method.toLowerCase();
  if (!['get', 'post', 'put', 'patch', 'delete'].includes(lower)) {
    throw new Error(`No request for ${method} routes here`);
  }
  return lower as 'get' | 'post' | 'put' | 'patch' | 'delete';
}

/** A path parameter gets any value: the guard answers before the handler reads it. */
function sample(url: string): string {
  return url.replace(/:\w+/g, 'x');
}

class RouteRecorder extends ConsoleLogger {
  constructor(private readonly into: Array<{ method: string; url: string }>) {
    super();
  }

  override log(message: unknown): void {
    const found = /^Mapped \{(\S+), (\w+)\} route$/.exec(String(message));
    if (found) this.into.push({ url: found[1], method: found[2] });
  }

  override warn(): void {}
}
