import { execFileSync } from 'node:child_process';
import { pbkdf2 } from 'node:crypto';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ChunkedLines } from './chunked-lines';

describe('ChunkedLines', () => {
  let dir: string;
  let file: string;
  let fd: number;
  let lines: ChunkedLines;
  const written = () => readFileSync(file, 'utf8');
  const line = (n: number) => `${JSON.stringify({ n, pad: 'x'.repeat(80) })}\n`;
  const settle = async (until: () => boolean, ms = 3000) => {
    for (const start = Date.now(); !until() && Date.now() - start < ms;) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'lines-'));
    file = join(dir, 'out.log');
    fd = openSync(file, 'w');
    lines = new ChunkedLines(fd);
  });

  afterEach(() => {
    lines.close();
    closeSync(fd);
    rmSync(dir, { recursive: true, force: true });
  });

  it('holds lines until 4 KB have gathered, then writes them in order', async () => {
    const few = [1, 2, 3].map(line);
    few.forEach((text) => lines.write(text));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(written()).toBe('');
    const many = Array.from({ length: 60 }, (_, i) => line(i + 4));
    many.forEach((text) => lines.write(text));
    const expected = [...few, ...many].join('');
    await settle(() => written() === expected);
    expect(written()).toBe(expected);
  });

  it('writes a quiet stream within about a second, without more lines coming', async () => {
    lines.write(line(1));
    await settle(() => written() !== '', 2500);
    expect(written()).toBe(line(1));
  });

  it("writes what is pending on pino's flush, and calls back", async () => {
    lines.write(line(1));
    await new Promise<void>((resolve, reject) =>
      lines.flush((error) => (error ? reject(error) : resolve())),
    );
    await settle(() => written() !== '');
    expect(written()).toBe(line(1));
  });

  it('writes what is pending synchronously, as the exit hook does, even with the thread pool busy', async () => {
    // Every thread of libuv's pool busy (as under hashing load): an asynchronous write would
    // wait behind them, and an exiting process does not wait for it.
    const busy = Array.from(
      { length: 8 },
      () => new Promise((resolve) => pbkdf2('p', 's', 200_000, 32, 'sha256', resolve)),
    );
    lines.write(line(1));
    lines.write(line(2));
    lines.flushSync();
    expect(written()).toBe(line(1) + line(2));
    await Promise.all(busy);
  });

  it('writes pending lines to stdout when the process exits', () => {
    const script = [
      "const { stdoutLines } = require('./src/logging/chunked-lines');",
      "stdoutLines().write('first\\n');",
      "stdoutLines().write('last\\n');",
      'process.exit(0);',
    ].join('\n');
    const output = execFileSync(
      process.execPath,
      ['-r', 'ts-node/register/transpile-only', '-e', script],
      { cwd: join(__dirname, '..', '..'), encoding: 'utf8' },
    );
    expect(output).toBe('first\nlast\n');
  });
});
