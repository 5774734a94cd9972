import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

export interface LintProblem {
  severity: 'error' | 'warn';
  ruleId: string;
  message: string;
  where: string | undefined;
}

/**
 * Redocly's `recommended` ruleset, as `npx @redocly/cli lint` applies it, over a document file.
 * @redocly/openapi-core is an ES module, which Jest's CommonJS runtime cannot load: it runs in
 * its own Node process, which reports the problems as JSON.
 */
const LINT = `
import { createConfig, lint } from '@redocly/openapi-core';
const config = await createConfig({ extends: ['recommended'] });
const problems = await lint({ ref: process.argv[1], config });
process.stdout.write(JSON.stringify(problems.map((problem) => ({
  severity: problem.severity,
  ruleId: problem.ruleId,
  message: problem.message,
  where: problem.location[0]?.pointer,
}))));
`;

export async function redoclyLint(file: string): Promise<LintProblem[]> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--input-type=module', '--eval', LINT, file],
    { cwd: __dirname },
  );
  return JSON.parse(stdout) as LintProblem[];
}
