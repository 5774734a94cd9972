import { ChildProcess, SpawnOptions, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './support/free-port';
import { SmtpSink } from './support/mailbox';
import { serviceArgs } from './support/service-build';
import { HTTP_PLATFORM } from './support/test-app';

/** A started service's output, as a terminal shows it: colours and carriage returns removed. */
interface Started {
  port: number;
  lines(): string[];
  stop(): Promise<void>;
}

/**
 * The service as `npm start` runs it on a developer's machine (NODE_ENV unset, nothing
 * configured), its standard output a terminal (a pseudo-terminal from util-linux's `script`) or
 * a pipe. The environment is the test's own: a CI variable of the machine running the suite
 * must not leak in.
 */
async function start(
  terminal: boolean,
  env: Record<string, string> = {},
  until = /routes mapped|Listening on/,
): Promise<Started> {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'terminal-log-'));
  const command = [process.execPath, ...serviceArgs('main')].map(quoted).join(' ');
  const child: ChildProcess = terminal
    ? spawn('script', ['-qfec', `exec ${command}`, '/dev/null'], options())
    : spawn(process.execPath, serviceArgs('main'), options());
  function options(): SpawnOptions {
    return {
      cwd: dataDir,
      env: {
        PATH: process.env.PATH,
        TERM: 'xterm-256color',
        HTTP_PLATFORM,
        PORT: String(port),
        HOST: '127.0.0.1',
        DATA_DIR: dataDir,
        DATABASE_URL: 'sqlite::memory:',
        ...env,
      },
      stdio: 'pipe',
    };
  }
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const lines = () =>
    output
      // eslint-disable-next-line no-control-regex
      .replace(/\u001b\[[0-9;]*m/g, '')
      .split(/\r?\n/)
      .map((line) => line.replace(/\r/g, ''))
      .filter((line) => line !== '');
  const stop = async () => {
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
    rmSync(dataDir, { recursive: true, force: true });
  };
  for (const deadline = Date.now() + 60_000; !until.test(output);) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`The service did not start:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { port, lines, stop };
}

function quoted(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

function isJson(line: string): boolean {
  try {
    return typeof JSON.parse(line) === 'object';
  } catch {
    return false;
  }
}

async function eventually(condition: () => boolean): Promise<void> {
  for (const deadline = Date.now() + 10_000; !condition();) {
    if (Date.now() > deadline) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('the log on a terminal and elsewhere', () => {
  it('on a developer terminal: readable lines, where everything is first, the route map in one line', async () => {
    const service = await start(true);
    try {
      const api = `http://localhost:${service.port}/api/v1`;
      expect((await fetch(`${api}/health`)).status).toBe(200);
      await eventually(() => service.lines().some((line) => line.includes('GET /api/v1/health')));
      const [first, second, ...rest] = service.lines();
      expect(first).toMatch(/^\[\d\d:\d\d:\d\d\] INFO: /);
      expect(first).toContain(
        `Auth Service on ${api} (${HTTP_PLATFORM}) · ` +
          `example app: API_URL=${api} npm run example:spa, then http://localhost:5173 · ` +
          'mail: written to ./mail',
      );
      expect(second).toMatch(
        new RegExp(
          `^\\[\\d\\d:\\d\\d:\\d\\d\\] INFO: \\d{2,} routes mapped; ` +
            `the API's documentation on http://localhost:${service.port}/api/v1/docs$`,
        ),
      );
      expect(rest).toEqual([expect.stringMatching(/ INFO: GET \/api\/v1\/health 200 \d+ ms$/)]);
    } finally {
      await service.stop();
    }
  });

  it('names the SMTP server by its address, never its password', async () => {
    const sink = await new SmtpSink().start();
    const service = await start(true, {
      SMTP_URL: `smtp://ann:s3cret-smtp-pass@127.0.0.1:${sink.port}`,
    });
    try {
      const [first] = service.lines();
      expect(first).toMatch(
        new RegExp(` · mail: sent through smtp://127\\.0\\.0\\.1:${sink.port}$`),
      );
      expect(service.lines().join('\n')).not.toContain('s3cret-smtp-pass');
    } finally {
      await service.stop();
      await sink.stop();
    }
  });

  it.each([
    ['to a pipe', false, {}],
    ['on a terminal in CI', true, { CI: 'true' }],
    ['on a terminal with LOG_FORMAT=json', true, { LOG_FORMAT: 'json' }],
  ])('writes JSON lines %s, Nest’s route lines included', async (_where, terminal, env) => {
    const service = await start(terminal, env);
    try {
      const lines = service.lines();
      expect(lines.filter((line) => !isJson(line))).toEqual([]);
      const messages = lines.map((line) => (JSON.parse(line) as { msg: string }).msg);
      expect(messages).toContain(
        `Listening on http://localhost:${service.port}/api/v1 (port ${service.port}, ${HTTP_PLATFORM})`,
      );
      expect(messages.filter((message) => message.startsWith('Mapped {')).length).toBeGreaterThan(
        10,
      );
    } finally {
      await service.stop();
    }
  });
});
