import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './support/free-port';

const ROOT = join(__dirname, '..');

/**
 * The README's commands as a developer runs them, stopped the way a terminal, a process manager
 * or a test harness stops them: a signal to npm. What npm started must go with it and free its
 * port, not linger as an orphan.
 */
describe('stopping npm stops the server it started', () => {
  let dataDir: string;
  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'npm-scripts-'));
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  const cases: Array<[script: string, signal: NodeJS.Signals, env: () => Record<string, string>]> =
    [
      ['example:spa', 'SIGTERM', () => ({})],
      ['example:spa', 'SIGINT', () => ({})],
      [
        'start',
        'SIGTERM',
        () => ({ DATABASE_URL: 'sqlite::memory:', DATA_DIR: dataDir, LOG_LEVEL: 'warn' }),
      ],
    ];

  it.each(cases)(
    'npm run %s, then %s to npm: its server is gone and the port is free',
    async (script, signal, env) => {
      const port = await freePort();
      const npm = spawn('npm', ['run', '-s', script], {
        cwd: ROOT,
        env: { ...process.env, ...env(), PORT: String(port) },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      npm.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
      npm.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
      try {
        await until(
          () => listening(port),
          90_000,
          () => output,
        );

        npm.kill(signal);
        await exited(npm);

        await until(
          async () => !(await listening(port)),
          5_000,
          () => output,
        );
      } finally {
        npm.kill('SIGKILL');
      }
    },
    120_000,
  );
});

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, 'localhost');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

async function until(
  condition: () => Promise<boolean>,
  timeoutMs: number,
  output: () => string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`Timed out; the command printed:\n${output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
