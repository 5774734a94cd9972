import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { buildService } from './service-build';

/**
 * Once per Jest run, before any worker starts (they inherit the variable it sets): the service's
 * JavaScript for the suites that start it as a process, and the SDK as built, which the example
 * app's pages load in the browser suites (built here so they never run a stale one, and once
 * rather than in every browser suite).
 */
export default function globalSetup(): void {
  buildService();
  execFileSync(
    process.execPath,
    [
      require.resolve('typescript/bin/tsc'),
      '-p',
      join(__dirname, '..', '..', 'client', 'tsconfig.build.json'),
    ],
    {
      stdio: 'inherit',
    },
  );
}
