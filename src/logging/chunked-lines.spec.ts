import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ChunkedLines } from './chunked-lines';

describe('ChunkedLines', () => {
  let dir: string;
  let file: string;
  let fd: number;
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
  });

  afterEach(() => {
    closeSync(fd);
    rmSync(dir, { recursive: true, force: true });
  });

  it('holds lines until 4 KB have gathered, then writes them in order', async () => {
    const lines = new ChunkedLines(fd);
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
    const lines = new ChunkedLines(fd);
    lines.write(line(1));
    await settle(() => written() !== '', 2500);
    expect(written()).toBe(line(1));
  });

  it('writes what is pending at once and synchronously when the process exits', () => {
    const lines = new ChunkedLines(fd);
    lines.write(line(1));
    lines.write(line(2));
    lines.flushSync();
    expect(written()).toBe(line(1) + line(2));
  });
});
