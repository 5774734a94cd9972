import { DestinationStream } from 'pino';
import { stdoutLines } from './chunked-lines';

/**
 * Where the log lines go: standard output. A test overrides this provider
 * (`overrideProvider(LogOutput).useValue(new LogOutput(stream))`) to read the lines it causes.
 */
export class LogOutput {
  /** The lines go to standard output, and it is a terminal: a person may be reading. */
  readonly terminal: boolean;

  constructor(private readonly given?: DestinationStream) {
    this.terminal = given === undefined && process.stdout.isTTY === true;
  }

  /**
   * Readable lines for a terminal go out at once; JSON lines, what a program reads, in chunks
   * (ChunkedLines), even on a terminal (a container started with a TTY).
   */
  stream(readable: boolean): DestinationStream {
    return this.given ?? (readable && this.terminal ? process.stdout : stdoutLines());
  }
}
