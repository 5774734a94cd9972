import { DestinationStream } from 'pino';
import { Options } from 'pino-http';
import { LogConfig } from '../config/config.sections';

/**
 * The options nestjs-pino builds its one pino logger from. Lines are buffered and written off the
 * request path (ChunkedLines, the default LogOutput); what is pending is written when the process
 * exits. No `redact`: its wildcard paths cost a pass over every line, and no line is given an
 * object that could hold a secret (the request line has its own fixed fields, the others are text).
 */
export function pinoOptions(log: LogConfig, stream: DestinationStream): Options {
  return { level: log.level, stream };
}
