import { Post, applyDecorators } from '@nestjs/common';

/**
 * Operation ids of handlers that answer at several paths, by `Controller.method`, in the order of
 * their paths. Swagger calls the id factory with `method[index]` for such a handler; without these
 * names client generators would turn that into `verifyEmail0`, `verifyEmail1`, ...
 */
const aliasIds = new Map<string, string[]>();

/**
 * `@Post` at several paths, each named: `{ verifyEmail: 'auth/verify-email', verifyEmailAlias:
 * 'email/verify-email' }`. The first entry is the primary path; every entry becomes the operation
 * id of its path in the OpenAPI document, so generated clients get one readable method per path.
 */
export function PostAt(routes: Record<string, string>): MethodDecorator {
  const entries = Object.entries(routes);
  return (target, key, descriptor) => {
    aliasIds.set(
      `${target.constructor.name}.${String(key)}`,
      entries.map(([id]) => id),
    );
    applyDecorators(Post(entries.map(([, path]) => path)))(target, key, descriptor);
  };
}

/**
 * The document's operation ids: the handler's name (`login`, `verifyTokenGet`), or an alias's own
 * name given to `PostAt`. `ApiOperation({ operationId })` still overrides a single-path handler's.
 */
export function operationId(controller: string, method: string): string {
  const alias = /^(\w+)\[(\d+)\]$/.exec(method);
  if (!alias) return method;
  const id = aliasIds.get(`${controller}.${alias[1]}`)?.[Number(alias[2])];
  if (id === undefined) {
    throw new Error(`${controller}.${alias[1]} answers at several paths: name them with @PostAt`);
  }
  return id;
}
