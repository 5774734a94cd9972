import { writeSync } from 'node:fs';
import { DestinationStream } from 'pino';
import SonicBoom from 'sonic-boom';

/** Lines gather until this many characters, or until the next tick of `FLUSH_EVERY_MS`. */
const CHUNK = 4096;
const FLUSH_EVERY_MS = 1000;

/** Open writers; one exit hook for all of them, however many apps a process creates. */
const open = new Set<ChunkedLines>();
process.on('exit', () => {
  for (const lines of open) lines.flushSync();
});

/**
 * Log lines to a file descriptor, written asynchronously in chunks of about 4 KB and at least once
 * a second. sonic-boom (pino's writer) does the writing, but is handed whole chunks: given one line
 * at a time, it measures the byte length of its whole pending buffer on every line, which flattened
 * that growing string each time — about 7 KB of garbage per request, a seventh of what a token
 * check allocated (docs/performance.md). Lines pending at exit are handed over synchronously.
 */
export class ChunkedLines implements DestinationStream {
  private pending: string[] = [];
  private size = 0;
  private readonly writer: SonicBoom;
  /** For `flushSync` only: a writer that writes before returning, made on first need. */
  private syncWriter: SonicBoom | undefined;
  private readonly timer: NodeJS.Timeout;
  /** The output failed (a closed pipe, a full disk): lines are dropped, the process goes on. */
  private broken = false;

  constructor(private readonly fd: number) {
    this.writer = new SonicBoom({ fd, sync: false });
    this.writer.on('error', (error: NodeJS.ErrnoException) => this.fail(error));
    this.timer = setInterval(() => this.flush(), FLUSH_EVERY_MS).unref();
    open.add(this);
  }

  write(line: string): void {
    if (this.broken) return;
    this.pending.push(line);
    this.size += line.length;
    if (this.size >= CHUNK) this.flush();
  }

  /** Hands what is pending to the writer, which starts writing it; then `done` (`logger.flush`). */
  flush(done?: (error?: Error) => void): void {
    if (this.broken) return done?.();
    const chunk = this.take();
    if (chunk) this.writer.write(chunk);
    if (done) this.writer.flush(done);
  }

  /** The pending lines as one string ('' when none), no longer pending. */
  private take(): string {
    const chunk = this.pending.join('');
    this.pending = [];
    this.size = 0;
    return chunk;
  }

  /**
   * Writes what is pending before returning (the exit hook: the process ends right after). Not
   * through `flush`: handed to an idle writer, the lines would go out in an asynchronous write
   * that an exiting process does not wait for. The writer's own queue goes first, synchronously
   * (what it is writing already is on its way to the descriptor), then the pending lines.
   */
  flushSync(): void {
    if (this.broken) return;
    const chunk = this.take();
    try {
      this.writer.flushSync();
      if (chunk) (this.syncWriter ??= new SonicBoom({ fd: this.fd, sync: true })).write(chunk);
    } catch {
      // Exiting anyway (or closing a descriptor that is gone): nowhere left to say it.
    }
  }

  /** Writes what is pending and lets the descriptor go (the caller still owns and closes it). */
  close(): void {
    this.flushSync();
    clearInterval(this.timer);
    open.delete(this);
  }

  private fail(error: NodeJS.ErrnoException): void {
    if (this.broken) return;
    this.broken = true;
    this.pending = [];
    this.size = 0;
    // A reader that went away (EPIPE) wants no more lines; anything else is worth one word.
    if (error.code !== 'EPIPE') {
      try {
        writeSync(2, `Log output failed (${error.code ?? error.message}); lines are dropped\n`);
      } catch {
        // No stderr either.
      }
    }
  }
}

let stdout: ChunkedLines | undefined;

/** Standard output, one writer per process: every app in it (tests, an embedding app) shares it. */
export function stdoutLines(): ChunkedLines {
  stdout ??= new ChunkedLines(1);
  return stdout;
}
