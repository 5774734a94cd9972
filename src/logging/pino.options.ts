import { DestinationStream } from 'pino';
import { Options } from 'pino-http';
import { LogConfig } from '../config/config.sections';
import { stdoutLines } from './chunked-lines';

/**
 * The options nestjs-pino builds its one pino logger from. Lines are buffered and written off the
 * request path (ChunkedLines); what is pending is written when the process exits. No `redact`:
 * its wildcard paths cost a pass over every line, and no line is given an object that could hold
 * a secret (the request line has its own fixed fields, the others are text).
 */
export function pinoOptions(log: LogConfig, destination?: DestinationStream): Options {
  return {
    level: log.level,
    // Written in 4 KB chunks, and at least every second: a quiet instance's last lines (a 500,
    // a refused mail) never wait for traffic, and a kill loses at most one second of them.
    stream: destination ?? stdoutLines(),
  };
}
