import { copyFileSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import * as ts from 'typescript';

const ROOT = join(__dirname, '..', '..');
const SOURCE = join(ROOT, 'src');
/** Set by the global setup for the workers: the folder the service's JavaScript is in. */
const BUILD_VARIABLE = 'AUTH_TEST_BUILD_DIR';

/**
 * Node's arguments that run one of the service's entry points (`main`, a command…) as a process
 * of its own, from its path under `src` without the extension. Under Jest: the JavaScript the
 * global setup transpiled once for the whole run (ts-node transpiled the whole service again
 * on every start, several seconds each, and suites start dozens). Elsewhere: through ts-node, as
 * the npm scripts run the commands.
 */
export function serviceArgs(entry: string): string[] {
  const build = process.env[BUILD_VARIABLE];
  return build
    ? [join(build, `${entry}.js`)]
    : ['-r', require.resolve('ts-node/register/transpile-only'), join(SOURCE, `${entry}.ts`)];
}

/**
 * Transpiles `src` as ts-node's transpile-only mode does (each file alone, the project's
 * compiler options), into a folder beside `src` and `dist`: the service finds `views/` and
 * `resources/` one level up from its root folder, whichever it is. Files that are not
 * TypeScript (the hashing worker) are copied.
 */
export function buildService(): string {
  const build = join(ROOT, `.test-build-${process.pid}`);
  const { config } = ts.readConfigFile(join(ROOT, 'tsconfig.json'), (file) =>
    readFileSync(file, 'utf8'),
  );
  const { options } = ts.convertCompilerOptionsFromJson(
    (config as { compilerOptions: object }).compilerOptions,
    ROOT,
  );
  for (const file of filesUnder(SOURCE)) {
    const target = join(build, relative(SOURCE, file));
    mkdirSync(dirname(target), { recursive: true });
    if (!file.endsWith('.ts')) {
      copyFileSync(file, target);
      continue;
    }
    const { outputText } = ts.transpileModule(readFileSync(file, 'utf8'), {
      compilerOptions: { ...options, sourceMap: false, inlineSourceMap: false },
      fileName: file,
    });
    writeFileSync(target.replace(/\.ts$/, '.js'), outputText);
  }
  process.env[BUILD_VARIABLE] = build;
  return build;
}

export function removeServiceBuild(): void {
  const build = process.env[BUILD_VARIABLE];
  if (build) rmSync(build, { recursive: true, force: true });
}

function filesUnder(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return filesUnder(path);
    return entry.name.endsWith('.spec.ts') ? [] : [path];
  });
}
