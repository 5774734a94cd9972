import { DestinationStream } from 'pino';
import { stdoutLines } from './chunked-lines';

/**
 * Where the JSON log lines go: standard output, in chunks (ChunkedLines). A test overrides this
 * provider (`overrideProvider(LogOutput).useValue({ stream })`) to read the lines it causes.
 */
export class LogOutput {
  constructor(readonly stream: DestinationStream = stdoutLines()) {}
}
