#!/usr/bin/env node
// `npm run lint:openapi [file]`: the OpenAPI document (openapi.json by default) through the two
// linters integrators run, Redocly's `recommended` and Spectral's `spectral:oas` (.spectral.yaml).
// Prints every problem and exits 1 when either finds an error; warnings pass. `--json` prints
// `{ redocly, spectral }` instead, for test/openapi.e2e-spec.ts.
'use strict';
const { execFile } = require('node:child_process');
const { dirname, join, resolve } = require('node:path');
const { promisify } = require('node:util');

const ROOT = resolve(__dirname, '..');

/** Each linter's findings as `{ severity: 'error' | 'warn' | …, ruleId, message, where }`. */
async function redocly(file) {
  // An ES module: imported, not required.
  const { createConfig, lint } = await import('@redocly/openapi-core');
  const config = await createConfig({ extends: ['recommended'] });
  const problems = await lint({ ref: file, config });
  return problems.map((problem) => ({
    severity: problem.severity,
    ruleId: problem.ruleId,
    message: problem.message,
    where: problem.location[0] && problem.location[0].pointer,
  }));
}

const SPECTRAL_SEVERITIES = ['error', 'warn', 'info', 'hint'];

/** JSON Pointer escaping (RFC 6901) of one path segment. */
const pointer = (key) => String(key).replace(/~/g, '~0').replace(/\//g, '~1');

async function spectral(file) {
  const cli = join(dirname(require.resolve('@stoplight/spectral-cli/package.json')), 'dist');
  const ruleset = join(ROOT, '.spectral.yaml');
  const args = [join(cli, 'index.js'), 'lint', file, '--ruleset', ruleset, '-f', 'json', '-q'];
  let stdout;
  try {
    ({ stdout } = await promisify(execFile)(process.execPath, args));
  } catch (error) {
    // Exit code 1: it found an error, and reported it as usual. Anything else is its own failure.
    if (error.code !== 1) throw error;
    stdout = error.stdout;
  }
  return JSON.parse(stdout).map((problem) => ({
    severity: SPECTRAL_SEVERITIES[problem.severity],
    ruleId: problem.code,
    message: problem.message,
    where: `#/${problem.path.map(pointer).join('/')}`,
  }));
}

async function main() {
  const json = process.argv.includes('--json');
  const file = resolve(process.argv.slice(2).find((arg) => arg !== '--json') || 'openapi.json');
  const found = { redocly: await redocly(file), spectral: await spectral(file) };
  if (json) {
    process.stdout.write(JSON.stringify(found));
    return;
  }
  let errors = 0;
  for (const [linter, problems] of Object.entries(found)) {
    for (const { severity, ruleId, message, where } of problems) {
      console.log(`${linter} ${severity} ${ruleId}: ${message} (${where})`);
    }
    const count = problems.filter((problem) => problem.severity === 'error').length;
    console.log(`${linter}: ${count} errors, ${problems.length - count} other findings`);
    errors += count;
  }
  if (errors > 0) process.exitCode = 1;
}

main().catch((error) => {
  console.error(error);
  process.exit(2);
});
