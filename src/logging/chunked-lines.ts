import { DestinationStream } from 'pino';
import SonicBoom from 'sonic-boom';

/** Lines gather until this many characters, or until the next tick of `FLUSH_EVERY_MS`. */
const CHUNK = 4096;
const FLUSH_EVERY_MS = 1000;

/**
 * Log lines to a file descriptor, written asynchronously in chunks of about 4 KB and at least once
 * a second. sonic-boom (pino's writer) does the writing, but is handed whole chunks: given one line
 * at a time, it measures the byte length of its whole pending buffer on every line, which flattened
 * that growing string each time — about 7 KB of garbage per request, a sixth of what a token check
 * allocated (docs/performance.md). On exit whatever is pending is written synchronously.
 */
export class ChunkedLines implements DestinationStream {
  private pending: string[] = [];
  private size = 0;
  private readonly writer: SonicBoom;
  /** The output went away (a closed pipe): lines are dropped rather than the process crashing. */
  private broken = false;

  constructor(fd: number) {
    this.writer = new SonicBoom({ fd, sync: false });
    this.writer.on('error', () => {
      this.broken = true;
      this.pending = [];
      this.size = 0;
    });
    setInterval(() => this.flush(), FLUSH_EVERY_MS).unref();
    process.once('exit', () => this.flushSync());
  }

  write(line: string): void {
    if (this.broken) return;
    this.pending.push(line);
    this.size += line.length;
    if (this.size >= CHUNK) this.flush();
  }

  flush(): void {
    if (this.size === 0) return;
    const chunk = this.pending.join('');
    this.pending = [];
    this.size = 0;
    this.writer.write(chunk);
  }

  flushSync(): void {
    if (this.broken) return;
    this.flush();
    try {
      this.writer.flushSync();
    } catch {
      // Exiting anyway; there is nowhere left to say it.
    }
  }
}

let stdout: ChunkedLines | undefined;

/** Standard output, one writer per process: every app in it (tests, an embedding app) shares it. */
export function stdoutLines(): ChunkedLines {
  stdout ??= new ChunkedLines(1);
  return stdout;
}
