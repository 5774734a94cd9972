import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { loadConfig } from './config.loader';
import { ConfigError, EnvReader, RawEnv } from './env.reader';

const ROOT = resolve(__dirname, '..', '..');
export const ENV_EXAMPLE = join(ROOT, '.env.example');
export const CONFIG_REFERENCE = join(ROOT, 'docs', 'configuration.md');
const TEXT = 'text';

/** How the loader reads a variable: what it accepts, and the fallback it passes, if any. */
export interface LoaderRead {
  accepts: string;
  fallback?: string;
}

/** An EnvReader that notes every variable the loader reads, with its kind and limits. */
class RecordingEnvReader extends EnvReader {
  readonly reads = new Map<string, LoaderRead>();

  private note(name: string, accepts: string, fallback?: string): void {
    // A typed read says more than the bare string read a check may make first.
    if ((this.reads.get(name)?.accepts ?? TEXT) === TEXT)
      this.reads.set(name, { accepts, fallback });
  }

  override string(name: string): string | undefined {
    if (!this.reads.has(name)) this.reads.set(name, { accepts: TEXT });
    return super.string(name);
  }

  override int(name: string, fallback: number, min: number, max: number): number {
    this.note(name, `an integer from ${min} to ${max}`, String(fallback));
    return super.int(name, fallback, min, max);
  }

  override bool(name: string, fallback: boolean): boolean {
    this.note(name, 'true or false', String(fallback));
    return super.bool(name, fallback);
  }

  override oneOf<T extends string>(name: string, fallback: T, allowed: readonly T[]): T {
    this.note(name, `one of ${allowed.join(', ')}`, fallback);
    return super.oneOf(name, fallback, allowed);
  }

  override url(name: string, fallback: string): string {
    this.note(name, 'an http(s) URL', fallback);
    return super.url(name, fallback);
  }

  override origins(name: string, fallback: readonly string[]): string[] {
    this.note(name, 'http(s) origins, comma-separated', fallback.join(','));
    return super.origins(name, fallback);
  }
}

/**
 * Every variable the config loader reads, as it reads them with nothing set; a variable read only
 * as text is described by the problem the loader reports for a value of "x", when it has one.
 */
export function loaderReads(): Map<string, LoaderRead> {
  return inSandbox((dataDir) => {
    const recording = new RecordingEnvReader({ DATA_DIR: dataDir });
    loadConfig({ DATA_DIR: dataDir }, recording);
    for (const [name, read] of recording.reads) {
      if (read.accepts !== TEXT || name === 'DATA_DIR') continue;
      const problem = problemsOf({ DATA_DIR: dataDir, [name]: 'x' }).get(name);
      if (problem) read.accepts = problem.replace(/\s*\((got |ENOENT).*\)$/, '');
    }
    return recording.reads;
  });
}

/** What production refuses to start without, as the loader says it. */
export function productionRequirements(): Map<string, string> {
  return inSandbox((dataDir) => problemsOf({ NODE_ENV: 'production', DATA_DIR: dataDir }));
}

function problemsOf(env: RawEnv): Map<string, string> {
  try {
    loadConfig(env);
    return new Map();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return new Map(error.problems.map(({ variable, problem }) => [variable, problem]));
  }
}

/** Outside production the loader generates secrets into DATA_DIR: a throwaway one. */
function inSandbox<T>(run: (dataDir: string) => T): T {
  const dataDir = mkdtempSync(join(tmpdir(), 'auth-config-reference-'));
  try {
    return run(dataDir);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export interface ExampleVariable {
  name: string;
  value: string;
  section: string;
  description: string;
  /** The first variable of the group the description belongs to. */
  groupHead: string;
}

/**
 * The variables of .env.example, in order: `# --- Section ---` headings, and comment lines that
 * describe the variables right below them (`NAME=value`, or `# NAME=` for one left unset).
 */
export function exampleVariables(text = readFileSync(ENV_EXAMPLE, 'utf8')): ExampleVariable[] {
  const variables: ExampleVariable[] = [];
  let section = '';
  let comment: string[] = [];
  let group: { head: string; description: string } | undefined;
  for (const line of text.split('\n')) {
    const heading = /^# --- (.+) ---$/.exec(line);
    const variable =
      /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(line) ?? /^# ([A-Z][A-Z0-9_]*)=(\S*)$/.exec(line);
    if (heading) {
      section = heading[1];
      comment = [];
      group = undefined;
    } else if (variable) {
      if (comment.length > 0 || !group) {
        group = { head: variable[1], description: comment.join(' ') };
        comment = [];
      }
      variables.push({
        name: variable[1],
        value: variable[2].trim(),
        section,
        description: group.description,
        groupHead: group.head,
      });
    } else if (line.startsWith('#') && section) {
      comment.push(line.replace(/^#\s?/, ''));
      group = undefined;
    } else if (line.trim() === '') {
      comment = [];
      group = undefined;
    }
  }
  return variables;
}

const cell = (text: string) => text.replace(/[|<]/g, (char) => `\\${char}`);

/** docs/configuration.md: the loader's variables and rules, described by .env.example. */
export function renderConfigReference(): string {
  const reads = loaderReads();
  const required = productionRequirements();
  const lines = [
    '# Configuration reference',
    '',
    '<!-- Written by npm run docs:config from the config loader (src/config) and .env.example. -->',
    '',
    'Every variable the service reads, by section. The values come from the environment, then from',
    'a `.env` file ([`.env.example`](../.env.example) is one to copy); empty counts as unset. The',
    'configuration is validated once at boot: a bad value stops the service with one line naming',
    'every bad variable. "Accepted" is what the config loader checks; "default" is what an unset',
    "variable means. For production's other choices, see [Operating the service](operating.md).",
    '',
    '## Required in production',
    '',
    'With `NODE_ENV=production` and nothing else set, the loader refuses to start with:',
    '',
    ...[...required].map(([name, problem]) => `- \`${name}\` ${problem}`),
  ];
  let section = '';
  for (const variable of exampleVariables()) {
    if (variable.section !== section) {
      section = variable.section;
      lines.push(
        '',
        `## ${section}`,
        '',
        '| variable | default | accepted | meaning |',
        '| - | - | - | - |',
      );
    }
    const read = reads.get(variable.name);
    if (!read) throw new Error(`.env.example lists ${variable.name}, which the loader never reads`);
    if (!variable.description) throw new Error(`.env.example does not describe ${variable.name}`);
    const meaning =
      variable.groupHead === variable.name ? variable.description : `see \`${variable.groupHead}\``;
    const fallback = variable.value ? `\`${variable.value}\`` : 'unset';
    lines.push(
      `| \`${variable.name}\` | ${cell(fallback)} | ${cell(read.accepts)} | ${cell(meaning)} |`,
    );
  }
  return formatMarkdown(`${lines.join('\n')}\n`);
}

/** As `npm run format` would leave the page, so that the check and the formatter agree. */
function formatMarkdown(markdown: string): string {
  return execFileSync(
    join(ROOT, 'node_modules', '.bin', 'prettier'),
    ['--stdin-filepath', CONFIG_REFERENCE],
    {
      input: markdown,
      encoding: 'utf8',
    },
  );
}
