import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

export interface LintProblem {
  severity: 'error' | 'warn' | 'info' | 'hint';
  ruleId: string;
  message: string;
  where: string | undefined;
}

/**
 * What `npm run lint:openapi` finds in a document file, as CI runs it: Redocly's `recommended`
 * ruleset and Spectral's `spectral:oas`. It runs in its own Node process: @redocly/openapi-core
 * is an ES module, which Jest's CommonJS runtime cannot load, and Spectral is its CLI.
 */
export async function lintOpenApi(
  file: string,
): Promise<{ redocly: LintProblem[]; spectral: LintProblem[] }> {
  const script = join(__dirname, '..', '..', 'scripts', 'lint-openapi.js');
  const { stdout } = await promisify(execFile)(process.execPath, [script, '--json', file], {
    maxBuffer: 16 * 1024 * 1024,
  });
  return JSON.parse(stdout) as { redocly: LintProblem[]; spectral: LintProblem[] };
}
